import type { Sql } from '@routinely/db';
import { AppError } from '@routinely/platform';
import type { UnscheduledReason } from '@routinely/scheduling';
import {
  type DecisionRow,
  decisionsOfRun,
  findRun,
  markApplied,
  type RunRow,
  recordBatch,
  unappliedDecisions,
} from '../../db/runs-sql.js';
import type { Actor, TaskGateway } from './task-gateway.js';

/** A task the task service would still take a slot for (its gateway names a routine's template `recurring`). */
const PLACEABLE = new Set(['pending', 'scheduled']);
/** Tries of one apply when a task goes between the check and the apply (each try checks again). */
const APPLY_TRIES = 3;

export interface PendingDeps {
  db: Sql;
  tasks: TaskGateway;
  leaseMs: number;
  now(): Date;
}

/** Decisions of an earlier pass that no longer hold, by task id: the next batch places those tasks again. */
export type StalePlan = Map<string, DecisionRow>;

/**
 * Applies a run's written, unapplied decisions through the task service (idempotent: a retry sets the same
 * slots), always inside the user's placement lock (ADR 055):
 * - a task deleted, done, skipped or cancelled since its decision was written is left out and answered
 *   `unscheduled` (`not_schedulable`), so the rest is applied and the run ends (ADR 055);
 * - `resumed` (decisions a pass before this one wrote: its process died, or the task service was away between
 *   "computed" and "applied"): the plan is checked against the busy time as it is now. Other runs placed the
 *   user's tasks meanwhile (the dead pass held no lock), so when any of its slots overlaps busy time none of
 *   that plan is applied: its decisions come back as stale and the engine computes them again (a batch is
 *   whole families, so a family is never split between an old plan and a new one).
 */
export async function applyPending(deps: PendingDeps, runId: string, resumed: boolean): Promise<StalePlan> {
  const sql = deps.db;
  for (let attempt = 1; ; attempt++) {
    const run = (await findRun(sql, runId)) as RunRow;
    if (run.dry_run) return new Map();
    // A task the run already answered unscheduled keeps that answer (its old decision is never applied).
    const answered = new Set(run.unscheduled.map((u) => u.task_id));
    const pending = (await unappliedDecisions(sql, run.id)).filter((d) => !answered.has(d.task_id));
    if (pending.length === 0) return new Map();
    const actor = { tenantId: run.tenant_id, userId: run.user_id };
    const live = await leaveOutGone(deps, run, actor, pending);
    if (live.length === 0) return new Map();
    if (resumed && (await overlapsBusy(deps, actor, run, live))) {
      return new Map(live.map((d) => [d.task_id, d]));
    }
    try {
      await deps.tasks.applySlots(actor, live.map(assignmentOf));
    } catch (error) {
      // A task deleted or closed after the check: check again (it is left out the next time).
      if (taskWent(error) && attempt < APPLY_TRIES) continue;
      throw error;
    }
    await markApplied(
      sql,
      live.map((d) => d.id),
    );
    return new Map();
  }
}

/**
 * Applies the decisions a batch just wrote from tasks it read under the placement lock it still holds, without
 * reading the tasks again first (a round trip to the task service per run). A task deleted or closed since
 * makes the task service refuse the call as a whole; the run's pending decisions are then applied as after a
 * crash, checked.
 */
export async function applyComputed(deps: PendingDeps, run: RunRow, decisions: readonly DecisionRow[]) {
  if (run.dry_run || decisions.length === 0) return;
  try {
    await deps.tasks.applySlots({ tenantId: run.tenant_id, userId: run.user_id }, decisions.map(assignmentOf));
  } catch (error) {
    if (!taskWent(error)) throw error;
    await applyPending(deps, run.id, false);
    return;
  }
  await markApplied(
    deps.db,
    decisions.map((d) => d.id),
  );
}

const assignmentOf = (d: DecisionRow) => ({ taskId: d.task_id, start: d.chosen_slot_start, end: d.chosen_slot_end });

/** The task service refused a slot because a task is gone or closed (the call changed nothing). */
const taskWent = (error: unknown) =>
  error instanceof AppError && (error.code === 'not_found' || error.code === 'conflict');

/** The decisions whose task can still be placed; the others' tasks are answered unscheduled on the run. */
async function leaveOutGone(deps: PendingDeps, run: RunRow, actor: Actor, pending: DecisionRow[]) {
  const { tasks } = await deps.tasks.getTasks(actor, [...new Set(pending.map((d) => d.task_id))]);
  const placeable = new Set(tasks.filter((t) => PLACEABLE.has(t.status)).map((t) => t.id));
  const gone = [...new Set(pending.filter((d) => !placeable.has(d.task_id)).map((d) => d.task_id))];
  if (gone.length > 0) {
    const reason: UnscheduledReason = 'not_schedulable';
    await recordBatch(deps.db, run.id, {
      unscheduled: gone.map((taskId) => ({ task_id: taskId, reason })),
      done: 0,
      leaseUntil: new Date(deps.now().getTime() + deps.leaseMs),
    });
  }
  return pending.filter((d) => placeable.has(d.task_id));
}

/**
 * Whether any slot of `decisions` overlaps the user's busy time now, or a slot the run itself applied since
 * (a later batch may have used the time of a plan found stale before).
 */
async function overlapsBusy(deps: PendingDeps, actor: Actor, run: RunRow, decisions: DecisionRow[]) {
  const slot = (d: DecisionRow) => ({ start: d.chosen_slot_start.getTime(), end: d.chosen_slot_end.getTime() });
  const planned = decisions.map(slot);
  const span = {
    start: new Date(Math.min(...planned.map((s) => s.start))),
    end: new Date(Math.max(...planned.map((s) => s.end))),
  };
  const busy = (await deps.tasks.getBusy(actor, span, run.task_ids)).map((b) => ({
    start: b.start.getTime(),
    end: b.end.getTime(),
  }));
  const applied = (await decisionsOfRun(deps.db, run.id)).filter((d) => d.applied).map(slot);
  const taken = [...busy, ...applied];
  return planned.some((p) => taken.some((t) => t.start < p.end && p.start < t.end));
}
