/**
 * The builtin solver: places tasks into free time (working time minus no-go minus busy, computed by the
 * caller) under the contract's hard rules ("Area C: scheduling runs and decisions").
 *
 * Each pass orders the tasks earliest-deadline-first (priority, earliest start, sort order as tie-breakers),
 * never before their predecessors, and puts each one at its earliest feasible start by sweeping the sorted
 * free list from a binary-searched position; placed time is cut out of the free list. Several orderings are
 * tried (plain EDF, EDF with deadlines propagated to predecessors, shortest-first within a deadline, release
 * first) and the best result kept: most tasks, then higher priorities, then earlier starts. Plain EDF is one of
 * the passes, so the solver never places fewer tasks than EDF greedy. A bounded repair step then moves single
 * tasks to the front (unplaced) or back (placed) of the best order and keeps what improves the result.
 *
 * Parent/children blocks are NOT handled here yet: `parentId` is ignored and every task is placed on its own.
 */
import type { Interval } from './intervals.js';
import { type Bound, type Dependency, lowerBound, type SlotMs } from './solver-rules.js';
import { cutOut, FreeList, Heap } from './solver-structures.js';

export type { Dependency, DependencyType } from './solver-rules.js';

export interface SolverTask {
  id: string;
  durationMin: number;
  /** 1 is the highest. */
  priority: number;
  deadline?: Date;
  earliestStart?: Date;
  status: string;
  parentId?: string;
  sortOrder: number;
}

export interface FixedSlot {
  id: string;
  start: Date;
  end: Date;
}

export interface SolverInput {
  tasks: readonly SolverTask[];
  dependencies: readonly Dependency[];
  /** Predecessors outside the run that already have a slot. */
  fixed?: readonly FixedSlot[];
  /** Predecessors outside the run that are done (they satisfy any dependency). */
  doneTaskIds?: readonly string[];
  /** Sorted, disjoint; a placement lies inside one of them. */
  free: readonly Interval[];
  window: Interval;
  now: Date;
}

export type UnscheduledReason =
  | 'not_schedulable'
  | 'no_duration'
  | 'no_slot_in_window'
  | 'no_slot_before_deadline'
  | 'blocked_by_dependency';

export interface Placement {
  taskId: string;
  start: Date;
  end: Date;
  /** The constraint that bound the start: 'now', 'window_start', 'earliest_start', 'dependency:<id>', 'busy_or_working_hours'. */
  explanation: string;
}

export interface SolverResult {
  placements: Placement[];
  unscheduled: { taskId: string; reason: UnscheduledReason }[];
}

const MINUTE = 60_000;
/** Task-passes the repair step may spend (a pass over n tasks costs n). */
const REPAIR_WORK = 20_000;
const CLOSED = new Set(['done', 'skipped', 'cancelled']);

/** `now` rounded up to the next 5-minute mark (unchanged when already on one). */
export function roundUpToFiveMinutes(now: Date): number {
  const step = 5 * MINUTE;
  return Math.ceil(now.getTime() / step) * step;
}

interface Prepared {
  schedulable: SolverTask[];
  closed: SolverResult['unscheduled'];
  predecessors: Map<string, Dependency[]>;
  successors: Map<string, string[]>;
  fixed: Map<string, SlotMs>;
  done: Set<string>;
  from: number;
  to: number;
  nowMs: number;
}

function prepare(input: SolverInput): Prepared {
  const closed: SolverResult['unscheduled'] = [];
  const schedulable: SolverTask[] = [];
  const done = new Set(input.doneTaskIds ?? []);
  for (const task of input.tasks) {
    if (task.status === 'done') done.add(task.id);
    if (CLOSED.has(task.status)) closed.push({ taskId: task.id, reason: 'not_schedulable' });
    else if (!(task.durationMin > 0)) closed.push({ taskId: task.id, reason: 'no_duration' });
    else schedulable.push(task);
  }
  const predecessors = new Map<string, Dependency[]>();
  const successors = new Map<string, string[]>();
  for (const dep of input.dependencies) {
    const before = predecessors.get(dep.taskId) ?? [];
    const after = successors.get(dep.dependsOnId) ?? [];
    before.push(dep);
    after.push(dep.taskId);
    predecessors.set(dep.taskId, before);
    successors.set(dep.dependsOnId, after);
  }
  const fixed = new Map<string, SlotMs>();
  for (const slot of input.fixed ?? []) fixed.set(slot.id, { start: slot.start.getTime(), end: slot.end.getTime() });
  const nowMs = roundUpToFiveMinutes(input.now);
  return {
    schedulable,
    closed,
    predecessors,
    successors,
    fixed,
    done,
    from: Math.max(input.window.start.getTime(), nowMs),
    to: input.window.end.getTime(),
    nowMs,
  };
}

type OrderKey = (task: SolverTask) => number[];

const deadlineOf = (task: SolverTask) => task.deadline?.getTime() ?? Number.POSITIVE_INFINITY;
const releaseOf = (task: SolverTask) => task.earliestStart?.getTime() ?? Number.NEGATIVE_INFINITY;

/** The deadline a task inherits from its successors: it must end early enough for them to fit. */
function propagatedDeadlines(p: Prepared): Map<string, number> {
  const byId = new Map(p.schedulable.map((t) => [t.id, t]));
  const memo = new Map<string, number>();
  const visit = (id: string, depth: number): number => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const task = byId.get(id);
    let deadline = task ? deadlineOf(task) : Number.POSITIVE_INFINITY;
    memo.set(id, deadline); // cycle guard
    if (depth < 10_000)
      for (const next of p.successors.get(id) ?? []) {
        const succ = byId.get(next);
        if (succ) deadline = Math.min(deadline, visit(next, depth + 1) - succ.durationMin * MINUTE);
      }
    memo.set(id, deadline);
    return deadline;
  };
  for (const task of p.schedulable) visit(task.id, 0);
  return memo;
}

function compareKeys(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0 && !Number.isNaN(d)) return d;
  }
  return 0;
}

/** One greedy pass in the order `key` gives among tasks whose predecessors are resolved. */
function greedyPass(input: SolverInput, p: Prepared, base: FreeList, key: OrderKey): SolverResult {
  const free = base.clone();
  const inRun = new Map(p.schedulable.map((t) => [t.id, t]));
  const placed = new Map<string, SlotMs>(p.fixed);
  const pending = new Map<string, number>();
  for (const task of p.schedulable) {
    const open = (p.predecessors.get(task.id) ?? []).filter(
      (d) => inRun.has(d.dependsOnId) && !p.done.has(d.dependsOnId),
    );
    pending.set(task.id, open.length);
  }
  const ready = p.schedulable.filter((t) => pending.get(t.id) === 0);
  const keys = new Map(p.schedulable.map((t) => [t.id, [...key(t), t.sortOrder]]));
  const keyOf = (t: SolverTask) => keys.get(t.id) ?? [];
  const byKey = (a: SolverTask, b: SolverTask) =>
    compareKeys(keyOf(a), keyOf(b)) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const heap = new Heap<SolverTask>(byKey, ready);
  const result: SolverResult = { placements: [], unscheduled: [] };
  const settled = new Set<string>();
  const bounds = { nowMs: p.nowMs, windowStart: input.window.start.getTime() };
  while (heap.size > 0) {
    const task = heap.pop() as SolverTask;
    settled.add(task.id);
    const duration = task.durationMin * MINUTE;
    const bound: Bound | 'blocked' = lowerBound(
      task,
      duration,
      p.predecessors.get(task.id) ?? [],
      placed,
      p.done,
      bounds,
    );
    if (bound === 'blocked') {
      result.unscheduled.push({ taskId: task.id, reason: 'blocked_by_dependency' });
    } else {
      const until = Math.min(p.to, deadlineOf(task));
      const start = free.earliest(bound.at, duration, until);
      if (start < 0) {
        const late = until < p.to && free.earliest(bound.at, duration, p.to) >= 0;
        result.unscheduled.push({ taskId: task.id, reason: late ? 'no_slot_before_deadline' : 'no_slot_in_window' });
      } else {
        free.take(start, start + duration);
        placed.set(task.id, { start, end: start + duration });
        result.placements.push({
          taskId: task.id,
          start: new Date(start),
          end: new Date(start + duration),
          explanation: start > bound.at ? 'busy_or_working_hours' : bound.by,
        });
      }
    }
    for (const next of p.successors.get(task.id) ?? []) {
      const left = (pending.get(next) ?? 0) - 1;
      pending.set(next, left);
      const succ = inRun.get(next);
      if (left === 0 && succ) heap.push(succ);
    }
  }
  // Tasks never released sit on a dependency cycle.
  for (const task of p.schedulable)
    if (!settled.has(task.id)) result.unscheduled.push({ taskId: task.id, reason: 'blocked_by_dependency' });
  return result;
}

function score(result: SolverResult, priorities: Map<string, number>): number[] {
  let weight = 0;
  let starts = 0;
  for (const p of result.placements) {
    weight += 6 - (priorities.get(p.taskId) ?? 5);
    starts += p.start.getTime() / MINUTE;
  }
  return [-result.placements.length, -weight, starts];
}

export function solve(input: SolverInput): SolverResult {
  const p = prepare(input);
  const base = FreeList.from(input.free, p.from, p.to);
  const propagated = propagatedDeadlines(p);
  const eff = (t: SolverTask) => propagated.get(t.id) ?? deadlineOf(t);
  const orders: OrderKey[] = [
    (t) => [deadlineOf(t), t.priority, releaseOf(t)],
    (t) => [eff(t), t.priority, releaseOf(t)],
    (t) => [eff(t), t.durationMin, t.priority],
    (t) => [releaseOf(t), eff(t), t.priority],
    (t) => [t.priority, eff(t), releaseOf(t)],
  ];
  const priorities = new Map(input.tasks.map((t) => [t.id, t.priority]));
  let best: SolverResult = { placements: [], unscheduled: [] };
  let bestScore: number[] = [Number.POSITIVE_INFINITY];
  let bestOrder: OrderKey = orders[0] as OrderKey;
  const consider = (order: OrderKey): boolean => {
    const result = greedyPass(input, p, base, order);
    const s = score(result, priorities);
    if (compareKeys(s, bestScore) >= 0) return false;
    best = result;
    bestScore = s;
    bestOrder = order;
    return true;
  };
  for (const order of orders) {
    consider(order);
    if (best.unscheduled.length === 0) break;
  }
  // Repair: fragmented free time defeats EDF. Moving one task to the front (an unplaced one) or to the back (a
  // placed one) of the best order and keeping the change when the result improves; bounded so large runs stay
  // fast (each try is one pass over every task).
  let budget = Math.floor(REPAIR_WORK / Math.max(1, p.schedulable.length));
  const seedOrder = bestOrder;
  const rank = new Map<string, number>();
  const ranked =
    (ranks: Map<string, number>): OrderKey =>
    (t) => [ranks.get(t.id) ?? 1, ...seedOrder(t)];
  let improved = true;
  while (improved && budget > 0) {
    improved = false;
    const moves: [string, number][] = [
      ...best.unscheduled
        .filter((u) => u.reason !== 'blocked_by_dependency')
        .map((u): [string, number] => [u.taskId, 0]),
      ...best.placements.map((pl): [string, number] => [pl.taskId, 2]),
    ];
    for (const [id, to] of moves) {
      if (rank.get(id) === to) continue;
      if (budget-- <= 0) break;
      const next = new Map(rank).set(id, to);
      if (consider(ranked(next))) {
        rank.set(id, to);
        improved = true;
        break;
      }
    }
  }
  const chosen = best;
  chosen.placements.sort((a, b) => a.start.getTime() - b.start.getTime());
  return { placements: chosen.placements, unscheduled: [...p.closed, ...chosen.unscheduled] };
}

/**
 * Up to `limit` feasible slots for one task given what is already placed (`placed` slots are taken out of the
 * free time and serve as predecessors), spread over the window: the earliest, then evenly chosen among the
 * other free intervals it fits in. Empty when the task cannot be placed at all.
 */
export function candidatesFor(
  task: SolverTask,
  input: SolverInput,
  placed: readonly FixedSlot[] = [],
  limit = 5,
): Interval[] {
  const p = prepare({ ...input, tasks: [task], fixed: [...(input.fixed ?? []), ...placed] });
  if (p.schedulable.length === 0) return [];
  const free = FreeList.from(input.free, p.from, p.to);
  const taken = placed
    .map((s) => ({ start: s.start.getTime(), end: s.end.getTime() }))
    .sort((a, b) => a.start - b.start);
  for (const slot of taken) cutOut(free, slot.start, slot.end);
  const duration = task.durationMin * MINUTE;
  const bound = lowerBound(task, duration, p.predecessors.get(task.id) ?? [], p.fixed, p.done, {
    nowMs: p.nowMs,
    windowStart: input.window.start.getTime(),
  });
  if (bound === 'blocked') return [];
  const starts = free.feasibleStarts(bound.at, duration, Math.min(p.to, deadlineOf(task)));
  const picks = new Set<number>();
  const n = Math.min(limit, starts.length);
  for (let k = 0; k < n; k++) picks.add(n === 1 ? 0 : Math.round((k * (starts.length - 1)) / (n - 1)));
  return [...picks].map((i) => {
    const start = starts[i] as number;
    return { start: new Date(start), end: new Date(start + duration) };
  });
}
