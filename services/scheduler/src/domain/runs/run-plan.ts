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
}

export interface PlanDeps {
  tasks: TaskGateway;
  expandWorkingTime: ExpandWorkingTime;
  settingsOf(actor: Actor): Promise<{
    timezone: string;
    working_hours: Parameters<ExpandWorkingTime>[0]['workingHours'];
    no_go_windows: NonNullable<Parameters<ExpandWorkingTime>[0]['noGoWindows']>;
  }>;
  now(): Date;
}

export const toSolverTask = (t: RunTask): SolverTask => ({
  id: t.id,
  durationMin: t.durationMin,
  priority: t.priority,
  status: t.status,
  sortOrder: t.sortOrder,
  ...(t.deadlineAt ? { deadline: t.deadlineAt } : {}),
  ...(t.earliestStartAt ? { earliestStart: t.earliestStartAt } : {}),
  ...(t.parentTaskId ? { parentId: t.parentTaskId } : {}),
});

const toDependency = (d: RunDependency): Dependency => ({
  taskId: d.taskId,
  dependsOnId: d.dependsOnId,
  type: d.depType,
  lagMin: d.lagMin,
});

/** Stable topological order of the run's tasks (edges inside the run only); a cycle keeps the given order. */
export function predecessorsFirst(tasks: readonly SolverTask[], deps: readonly Dependency[]): SolverTask[] {
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
 * Reads what a run needs from the task service and the settings, fresh for each batch: the tasks still to
 * place, their dependencies (predecessors outside the run as fixed slots or done), and the free time of the
 * window = working hours minus no-go windows minus busy time (external events and the user's other scheduled
 * tasks; the run's own tasks' current slots do not count) minus the slots earlier batches chose.
 */
export async function loadRunPlan(deps: PlanDeps, run: RunRow, decisions: readonly DecisionRow[], window: Interval) {
  const actor = { tenantId: run.tenant_id, userId: run.user_id };
  const { tasks, dependencies } = await deps.tasks.getTasks(actor, run.task_ids);
  const inRun = new Set(run.task_ids);
  const latest = new Map<string, DecisionRow>();
  for (const d of decisions) latest.set(d.task_id, d);
  const decided: FixedSlot[] = [...latest.values()].map((d) => ({
    id: d.task_id,
    start: new Date(d.chosen_slot_start),
    end: new Date(d.chosen_slot_end),
  }));
  const settled = new Set([...latest.keys(), ...run.unscheduled.map((u) => u.task_id)]);
  const edges = dependencies.filter((d) => inRun.has(d.taskId)).map(toDependency);
  const outsideIds = [...new Set(edges.map((d) => d.dependsOnId).filter((id) => !inRun.has(id)))];
  const outside = (await deps.tasks.getTasks(actor, outsideIds)).tasks;
  const fixed: FixedSlot[] = outside.flatMap((t) =>
    t.chosenSlotStart && t.chosenSlotEnd ? [{ id: t.id, start: t.chosenSlotStart, end: t.chosenSlotEnd }] : [],
  );
  const remaining = predecessorsFirst(tasks.filter((t) => !settled.has(t.id)).map(toSolverTask), edges);
  // Nothing left to place, or no time to place it in (a reflow root filled by its own duration): no free time.
  let free: Interval[] = [];
  if (remaining.length > 0 && window.end > window.start) {
    const settings = await deps.settingsOf(actor);
    const working = deps.expandWorkingTime({
      timezone: settings.timezone,
      workingHours: settings.working_hours,
      noGoWindows: settings.no_go_windows,
      window,
    });
    // A reflow places the descendants inside the root's own slot, so the root does not make its slot busy.
    const exclude = run.root_task_id ? [...run.task_ids, run.root_task_id] : run.task_ids;
    const busy = await deps.tasks.getBusy(actor, window, exclude);
    const taken = mergeIntervals([...busy, ...decided].map((b) => ({ start: b.start, end: b.end })));
    free = subtractIntervals(working, taken);
  }
  const input: SolverInput = {
    tasks: remaining,
    dependencies: edges,
    fixed: [...fixed, ...decided],
    doneTaskIds: outside.filter((t) => t.status === 'done').map((t) => t.id),
    free,
    window,
    now: deps.now(),
  };
  const titles = new Map(tasks.map((t) => [t.id, t.title]));
  return { remaining, input, decided, titles } satisfies RunPlan;
}
