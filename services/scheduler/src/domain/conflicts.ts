import type { Sql } from '@routinely/db';
import { enqueue, makeEvent, schedulerEvents } from '@routinely/events';
import type { Clock } from '@routinely/platform';
import { solve } from '@routinely/scheduling';
import { v7 as uuidv7 } from 'uuid';
import {
  type ConflictAssignment,
  type ConflictCheckRow,
  finishCheck,
  latestAppliedDecisions,
  latestDecisionIds,
  saveOutcome,
} from '../db/conflicts-sql.js';
import { insertDecision, markApplied } from '../db/runs-sql.js';
import type { PlacementLock } from './placement-lock.js';
import { loadRunPlan, type PlanDeps } from './runs/run-plan.js';
import type { RunTask } from './runs/task-gateway.js';

const DAY_MS = 86_400_000;
/** Re-placement looks as far ahead as a default run: now .. now + 14 days. */
const WINDOW_MS = 14 * DAY_MS;
/** How far ahead a conflict is looked for (the contract's longest run window). */
const LOOK_AHEAD_MS = 90 * DAY_MS;

export interface ConflictDeps extends PlanDeps {
  db: Sql;
  clock: Clock;
  /** Pushes the events a check enqueued. */
  kick(): void;
  placements: PlacementLock;
}

const overlaps = (t: RunTask, start: Date, end: Date) =>
  t.chosenSlotStart !== null && t.chosenSlotEnd !== null && t.chosenSlotStart < end && t.chosenSlotEnd > start;

const CLOSED = new Set(['done', 'skipped', 'cancelled']);

const utc = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * Beyond the anchors (ADR 058): a busy calendar event that overlaps scheduled tasks moves them. The
 * tasks overlapping the event (scheduled, not done; a descendant inside its parent's block moves only with its
 * parent) are placed again by the solver with every other hard rule, the event busy in the task service's copy
 * (the check starts from that service's report that it applied the change). Their decisions (`source:
 * "solver"`, superseding the task's newest), the slots to apply and one `scheduler.schedule.conflicted` event commit together; then the slots are applied.
 */
export class ConflictResolver {
  constructor(private readonly deps: ConflictDeps) {}

  async resolve(check: ConflictCheckRow): Promise<void> {
    // Under the user's placement lock: the re-placement reads busy time and applies its slots as one step.
    await this.deps.placements.run(check.user_id, async () => {
      const outcome = check.outcome ?? (await this.decide(check));
      await this.apply(check, outcome);
    });
    await finishCheck(this.deps.db, check.id, this.deps.clock.now());
  }

  private async decide(check: ConflictCheckRow): Promise<ConflictAssignment[]> {
    const actor = { tenantId: check.tenant_id, userId: check.user_id };
    const { event_start: eventStart, event_end: eventEnd } = check;
    const now = this.deps.clock.now();
    // Only slots still ahead move (a task under way or over is the user's business); GetBusy spans <= 366 days.
    const from = new Date(Math.max(eventStart.getTime(), now.getTime()));
    const to = new Date(Math.min(eventEnd.getTime(), now.getTime() + LOOK_AHEAD_MS));
    if (!(to > from)) return this.commit(check, [], []);
    const busy = await this.deps.tasks.getBusy(actor, { start: from, end: to }, []);
    const candidateIds = [
      ...new Set(busy.flatMap((b) => b.sources.filter((s) => s.source === 'task').map((s) => s.id))),
    ];
    const { tasks } = await this.deps.tasks.getTasks(actor, candidateIds, { includeDescendants: true });
    const byId = new Map(tasks.map((t) => [t.id, t]));
    // What moves: overlapping scheduled top-level tasks not yet started, with their blocks. A descendant lies
    // inside its parent's slot, so it overlaps only when its parent does and moves with it.
    const overlapping = tasks.filter(
      (t) =>
        candidateIds.includes(t.id) &&
        t.status === 'scheduled' &&
        !t.parentTaskId &&
        t.chosenSlotStart !== null &&
        t.chosenSlotStart >= now &&
        overlaps(t, eventStart, eventEnd),
    );
    // Only what the engine placed moves: a slot the user set by hand (a PATCH, or an override) is the user's
    // choice, kept like an override's (ADR 058), so its task's slot must still be its newest engine decision's.
    const placed = await latestAppliedDecisions(
      this.deps.db,
      actor,
      overlapping.map((t) => t.id),
    );
    const movers = overlapping.filter((t) => {
      const d = placed.get(t.id);
      return (
        d !== undefined &&
        d.source !== 'override' &&
        d.start.getTime() === t.chosenSlotStart?.getTime() &&
        d.end.getTime() === t.chosenSlotEnd?.getTime()
      );
    });
    const open = tasks.filter((t) => (movers.includes(t) || isBelow(t, movers, byId)) && !CLOSED.has(t.status));
    if (movers.length === 0) return this.commit(check, [], []);

    const window = { start: now, end: new Date(now.getTime() + WINDOW_MS) };
    const ids = open.map((t) => t.id);
    // The task service published the event this check came from after it applied the change, so the busy
    // time the plan reads already holds the event (ADR 058).
    const plan = await loadRunPlan(
      this.deps,
      { ...check, task_ids: ids, unscheduled: [], root_task_id: null },
      [],
      window,
    );
    const result = solve(plan.input);
    return this.commit(
      check,
      result.placements.map((p) => ({ ...p, task: byId.get(p.taskId) as RunTask })),
      open.filter((t) => !result.placements.some((p) => p.taskId === t.id)),
      result.unscheduled,
    );
  }

  private async commit(
    check: ConflictCheckRow,
    moved: { taskId: string; start: Date; end: Date; explanation: string; task: RunTask }[],
    dropped: RunTask[],
    reasons: { taskId: string; reason: string }[] = [],
  ): Promise<ConflictAssignment[]> {
    const owner = { tenantId: check.tenant_id, userId: check.user_id };
    const now = this.deps.clock.now();
    const { event_start: eventStart, event_end: eventEnd } = check;
    const named = `"${check.title}" (${utc(eventStart)} - ${utc(eventEnd)})`;
    const outcome = await this.deps.db.transaction(async (sql) => {
      const latest = await latestDecisionIds(sql, owner, [...moved.map((m) => m.taskId)]);
      const assignments: ConflictAssignment[] = [];
      const movedData = [];
      for (const m of moved) {
        const id = uuidv7();
        await insertDecision(sql, {
          id,
          tenant_id: check.tenant_id,
          user_id: check.user_id,
          run_id: null,
          task_id: m.taskId,
          chosen_slot_start: m.start,
          chosen_slot_end: m.end,
          rationale: `the calendar event ${named} now overlaps this task's slot; the solver moved it to the earliest feasible slot (bound by ${m.explanation})`,
          provider: 'builtin',
          model: 'solver',
          source: 'solver',
          supersedes_id: latest.get(m.taskId) ?? null,
          dry_run: false,
          applied: false,
          warnings: [],
          created_by: check.user_id,
          created_at: now,
        });
        assignments.push({
          task_id: m.taskId,
          start: m.start.toISOString(),
          end: m.end.toISOString(),
          decision_id: id,
        });
        movedData.push({
          task_id: m.taskId,
          title: m.task.title,
          decision_id: id,
          from_start: m.task.chosenSlotStart?.toISOString() ?? '',
          from_end: m.task.chosenSlotEnd?.toISOString() ?? '',
          to_start: m.start.toISOString(),
          to_end: m.end.toISOString(),
        });
      }
      for (const t of dropped) assignments.push({ task_id: t.id, start: null, end: null, decision_id: null });
      if (assignments.length > 0) {
        await enqueue(
          sql,
          makeEvent(
            schedulerEvents.scheduleConflicted,
            { tenantId: check.tenant_id, userId: check.user_id, at: now },
            {
              user_id: check.user_id,
              tenant_id: check.tenant_id,
              event: {
                id: check.event_id,
                title: check.title,
                start: eventStart.toISOString(),
                end: eventEnd.toISOString(),
              },
              moved: movedData,
              unscheduled: dropped.map((t) => ({
                task_id: t.id,
                title: t.title,
                reason: reasons.find((r) => r.taskId === t.id)?.reason ?? 'no_slot_in_window',
                from_start: t.chosenSlotStart?.toISOString() ?? '',
                from_end: t.chosenSlotEnd?.toISOString() ?? '',
              })),
            },
          ),
        );
      }
      await saveOutcome(sql, check.id, assignments);
      return assignments;
    });
    this.deps.kick();
    return outcome;
  }

  /** Sets (or clears) the decided slots; idempotent, so a retry after a crash sets the same slots again. */
  private async apply(check: ConflictCheckRow, outcome: readonly ConflictAssignment[]): Promise<void> {
    if (outcome.length === 0) return;
    await this.deps.tasks.applySlots(
      { tenantId: check.tenant_id, userId: check.user_id },
      outcome.map((a) => ({
        taskId: a.task_id,
        start: a.start ? new Date(a.start) : null,
        end: a.end ? new Date(a.end) : null,
      })),
    );
    const decisions = outcome.flatMap((a) => (a.decision_id ? [a.decision_id] : []));
    if (decisions.length > 0) await markApplied(this.deps.db, decisions);
  }
}

/** Whether `t` lies under one of `roots` (walking parents through the tasks read). */
function isBelow(t: RunTask, roots: readonly RunTask[], byId: Map<string, RunTask>): boolean {
  const seen = new Set<string>();
  let parent = t.parentTaskId ? byId.get(t.parentTaskId) : undefined;
  while (parent && !seen.has(parent.id)) {
    if (roots.some((r) => r.id === parent?.id)) return true;
    seen.add(parent.id);
    parent = parent.parentTaskId ? byId.get(parent.parentTaskId) : undefined;
  }
  return false;
}
