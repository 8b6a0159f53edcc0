/** Candidate slots for the language model (ADR 052, ADR 054): feasible by construction, spread over the window. */
import type { Interval } from './intervals.js';
import { CLOSED_STATUSES, childrenIndex, type Unit, unitLowerBound, unitRootedAt } from './solver-blocks.js';
import { type FixedSlot, prepare, type SolverInput, type SolverTask } from './solver-input.js';
import { cutOut, FreeList } from './solver-structures.js';

/**
 * The unit (block) rooted at `task` among the input's tasks: its open descendants laid out by the block rule.
 * Undefined when the task is closed, has no time, or its inside dependencies cannot hold.
 */
export function blockOf(task: SolverTask, input: SolverInput): Unit<SolverTask> | undefined {
  if (CLOSED_STATUSES.has(task.status)) return undefined;
  const tasks = input.tasks.some((t) => t.id === task.id) ? input.tasks : [...input.tasks, task];
  const done = new Set(input.doneTaskIds ?? []);
  for (const t of tasks) if (t.status === 'done') done.add(t.id);
  const { unit } = unitRootedAt(task, childrenIndex(tasks), input.dependencies, done);
  return unit.duration > 0 && !unit.blockedInside ? unit : undefined;
}

/**
 * Up to `limit` feasible slots for one task given what is already placed (`placed` slots are taken out of the
 * free time and serve as predecessors), spread over the window: the earliest, then evenly chosen among the
 * other free intervals it fits in. For a task with open children the slots are block slots (its rolled-up
 * duration; `blockOf` gives the layout). Empty when the task cannot be placed at all.
 */
export function candidatesFor(
  task: SolverTask,
  input: SolverInput,
  placed: readonly FixedSlot[] = [],
  limit = 5,
): Interval[] {
  const unit = blockOf(task, input);
  if (!unit) return [];
  const p = prepare({ ...input, tasks: [], fixed: [...(input.fixed ?? []), ...placed] });
  const free = FreeList.from(input.free, p.from, p.to, (input.bufferMin ?? 0) * 60_000);
  const taken = placed
    .map((s) => ({ start: s.start.getTime(), end: s.end.getTime() }))
    .sort((a, b) => a.start - b.start);
  for (const slot of taken) cutOut(free, slot.start - free.gap, slot.end + free.gap);
  const done = new Set([...p.done, ...input.tasks.filter((t) => t.status === 'done').map((t) => t.id)]);
  const bound = unitLowerBound(unit, p.fixed, done, { nowMs: p.nowMs, windowStart: input.window.start.getTime() });
  if (bound === 'blocked') return [];
  const starts = free.feasibleStarts(bound.at, unit.duration, Math.min(p.to, unit.deadline));
  const picks = new Set<number>();
  const n = Math.min(limit, starts.length);
  for (let k = 0; k < n; k++) picks.add(n === 1 ? 0 : Math.round((k * (starts.length - 1)) / (n - 1)));
  return [...picks].map((i) => {
    const start = starts[i] as number;
    return { start: new Date(start), end: new Date(start + unit.duration) };
  });
}
