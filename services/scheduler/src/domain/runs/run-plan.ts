import {
  type Dependency,
  type FixedSlot,
  type Interval,
  mergeIntervals,
  type SolverInput,
  type SolverTask,
  subtractIntervals,
} from '@routinely/scheduling';
import type { DecisionRow, RunRow } from '../../db/runs-sql.js';
import type { ExpandWorkingTime } from '../working-time.js';
import type { Actor, RunDependency, RunTask, TaskGateway } from './task-gateway.js';

/** Where a run stands: the solver input of what is left, and what earlier batches decided. */
export interface RunPlan {
  /** Tasks still to place, predecessors before successors (so a batch never waits for a later one). */
  remaining: SolverTask[];
  input: SolverInput;
  /** Slots earlier batches of the run chose: fixed, taken out of the free time. */
  decided: FixedSlot[];
  titles: Map<string, string>;
  /** Tasks of the run the task service no longer has (deleted since the run was queued), not yet answered. */
  missing: string[];
  /** A reflow run: its root, whose current slot the descendants are placed inside (ADR 053). */
  root?: { task: SolverTask; start: Date; end: Date } | undefined;
}

export interface PlanDeps {
  tasks: TaskGateway;
  expandWorkingTime: ExpandWorkingTime;
  settingsOf(actor: Actor): Promise<{
    timezone: string;
    working_hours: Parameters<ExpandWorkingTime>[0]['workingHours'];
    no_go_windows: NonNullable<Parameters<ExpandWorkingTime>[0]['noGoWindows']>;
    /** Minutes kept free around what the solver places (contract: settings `buffer_min`). */
    buffer_min?: number;
  }>;
  now(): Date;
}

const toSolverTask = (t: RunTask): SolverTask => ({
  id: t.id,
  durationMin: t.durationMin,
  priority: t.priority,
  status: t.status,
  sortOrder: t.sortOrder,
  ...(t.deadlineAt ? { deadline: t.deadlineAt } : {}),
  ...(t.earliestStartAt ? { earliestStart: t.earliestStartAt } : {}),
  ...(t.parentTaskId ? { parentId: t.parentTaskId } : {}),
  ...(t.chosenSlotStart ? { currentStart: t.chosenSlotStart } : {}),
});

const toDependency = (d: RunDependency): Dependency => ({
  taskId: d.taskId,
  dependsOnId: d.dependsOnId,
  type: d.depType,
  lagMin: d.lagMin,
});

/** Stable topological order of the run's tasks (edges inside the run only); a cycle keeps the given order. */
function predecessorsFirst(tasks: readonly SolverTask[], deps: readonly Dependency[]): SolverTask[] {
  const ids = new Set(tasks.map((t) => t.id));
  const preds = new Map<string, string[]>();
  for (const d of deps) {
    if (ids.has(d.taskId) && ids.has(d.dependsOnId))
      preds.set(d.taskId, [...(preds.get(d.taskId) ?? []), d.dependsOnId]);
  }
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const out: SolverTask[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string) => {
    if (state.has(id)) return;
    state.set(id, 'visiting');
    for (const p of preds.get(id) ?? []) visit(p);
    state.set(id, 'done');
    out.push(byId.get(id) as SolverTask);
  };
  for (const t of tasks) visit(t.id);
  return out;
}

/**
 * The next batch of at least `size` tasks (fewer at the end) made of whole families: a parent and its
 * descendants are one block (ADR 053), so a batch never holds part of one, or a later batch would place the rest
 * outside the parent's slot. Families are taken predecessors first (edges between families), cycles as given.
 */
export function nextFamilies(
  remaining: readonly SolverTask[],
  deps: readonly Dependency[],
  size: number,
): SolverTask[] {
  const byId = new Map(remaining.map((t) => [t.id, t]));
  const familyOf = (task: SolverTask): string => {
    let current = task;
    const seen = new Set<string>();
    while (current.parentId && !seen.has(current.id)) {
      seen.add(current.id);
      const parent = byId.get(current.parentId);
      if (!parent) break;
      current = parent;
    }
    return current.id;
  };
  const families = new Map<string, SolverTask[]>();
  const family = new Map<string, string>();
  for (const t of remaining) {
    const id = familyOf(t);
    family.set(t.id, id);
    families.set(id, [...(families.get(id) ?? []), t]);
  }
  const preds = new Map<string, string[]>();
  for (const d of deps) {
    const from = family.get(d.dependsOnId);
    const to = family.get(d.taskId);
    if (from && to && from !== to) preds.set(to, [...(preds.get(to) ?? []), from]);
  }
  const batch: SolverTask[] = [];
  const visited = new Set<string>();
  const visit = (id: string) => {
    if (visited.has(id) || batch.length >= size) return;
    visited.add(id);
    for (const p of preds.get(id) ?? []) visit(p);
    if (batch.length < size) batch.push(...(families.get(id) ?? []));
  };
  for (const id of families.keys()) visit(id);
  return batch;
}

/**
 * Reads what a run needs from the task service and the settings, fresh for each batch: the tasks still to
 * place, their dependencies (predecessors outside the run as fixed slots or done), and the free time of the
 * window = working hours minus no-go windows minus busy time (external events and the user's other scheduled
 * tasks; the run's own tasks' current slots do not count) minus the slots earlier batches chose.
 */
export async function loadRunPlan(
  deps: PlanDeps,
  run: Pick<RunRow, 'tenant_id' | 'user_id' | 'task_ids' | 'unscheduled' | 'root_task_id'>,
  decisions: readonly DecisionRow[],
  runWindow: Interval,
) {
  const actor = { tenantId: run.tenant_id, userId: run.user_id };
  // A reflow places inside the root's slot as it is now (it may have moved since the run started).
  const root = run.root_task_id ? await reflowRoot(deps, actor, run.root_task_id) : undefined;
  const window = root ? { start: root.start, end: root.end } : runWindow;
  const { tasks, dependencies } = await deps.tasks.getTasks(actor, run.task_ids);
  const inRun = new Set(run.task_ids);
  const latest = new Map<string, DecisionRow>();
  for (const d of decisions) latest.set(d.task_id, d);
  const decided: FixedSlot[] = [...latest.values()].map((d) => ({
    id: d.task_id,
    start: d.chosen_slot_start,
    end: d.chosen_slot_end,
  }));
  const settled = new Set([...latest.keys(), ...run.unscheduled.map((u) => u.task_id)]);
  const edges = dependencies.filter((d) => inRun.has(d.taskId)).map(toDependency);
  const outsideIds = [...new Set(edges.map((d) => d.dependsOnId).filter((id) => !inRun.has(id)))];
  const outside = (await deps.tasks.getTasks(actor, outsideIds)).tasks;
  const fixed: FixedSlot[] = outside.flatMap((t) =>
    t.chosenSlotStart && t.chosenSlotEnd ? [{ id: t.id, start: t.chosenSlotStart, end: t.chosenSlotEnd }] : [],
  );
  const remaining = predecessorsFirst(tasks.filter((t) => !settled.has(t.id)).map(toSolverTask), edges);
  const found = new Set(tasks.map((t) => t.id));
  const missing = run.task_ids.filter((id) => !found.has(id) && !settled.has(id));
  // Nothing left to place, or no time to place it in (a reflow root filled by its own duration): no free time.
  let free: Interval[] = [];
  let bufferMin = 0;
  if (remaining.length > 0 && window.end > window.start) {
    const settings = await deps.settingsOf(actor);
    const expand = (noGoWindows: typeof settings.no_go_windows) =>
      deps.expandWorkingTime({
        timezone: settings.timezone,
        workingHours: settings.working_hours,
        noGoWindows,
        window,
      });
    // The tasks of one block are not separated, so a reflow (inside its root's slot) keeps no buffer.
    bufferMin = run.root_task_id ? 0 : (settings.buffer_min ?? 0);
    const bufferMs = bufferMin * 60_000;
    // A reflow places the descendants inside the root's own slot, so the root does not make its slot busy.
    const exclude = run.root_task_id ? [...run.task_ids, run.root_task_id] : run.task_ids;
    // Busy time just outside the window still keeps its buffer inside it.
    const [around] = widen([window], bufferMs);
    const busy = await deps.tasks.getBusy(actor, around ?? window, exclude);
    const taken = [...busy, ...decided].map((b) => ({ start: b.start, end: b.end }));
    if (bufferMs === 0) {
      free = subtractIntervals(expand(settings.no_go_windows), mergeIntervals(taken));
    } else {
      // Busy time, earlier placements and the no-go time inside working hours, each widened by the buffer.
      const working = expand([]);
      const noGo = subtractIntervals(working, expand(settings.no_go_windows));
      free = subtractIntervals(working, mergeIntervals(widen([...taken, ...noGo], bufferMs)));
    }
  }
  const input: SolverInput = {
    tasks: remaining,
    dependencies: edges,
    fixed: [...fixed, ...decided],
    doneTaskIds: outside.filter((t) => t.status === 'done').map((t) => t.id),
    free,
    window,
    now: deps.now(),
    ...(bufferMin > 0 ? { bufferMin } : {}),
  };
  const titles = new Map(tasks.map((t) => [t.id, t.title]));
  return { remaining, missing, input, decided, titles, root } satisfies RunPlan;
}

/** Each interval grown by `ms` on both sides (a buffer kept free around busy time). */
function widen(intervals: readonly Interval[], ms: number): Interval[] {
  return intervals.map((i) => ({ start: new Date(i.start.getTime() - ms), end: new Date(i.end.getTime() + ms) }));
}

/** The reflow root as it is now (its slot may have moved since the run started); none without a slot. */
async function reflowRoot(deps: PlanDeps, actor: Actor, rootId: string): Promise<RunPlan['root']> {
  const [root] = (await deps.tasks.getTasks(actor, [rootId])).tasks;
  if (!root?.chosenSlotStart || !root.chosenSlotEnd) return undefined;
  return { task: toSolverTask(root), start: root.chosenSlotStart, end: root.chosenSlotEnd };
}
