/**
 * The builtin solver: places tasks into free time (working time minus no-go minus busy, computed by the
 * caller) under the contract's hard rules ("Area C: scheduling runs and decisions").
 *
 * It places units (solver-blocks.ts): a task with open children is one block of its rolled-up duration holding
 * its descendants in `sort_order`; any other task is a unit of one. Each pass orders the units
 * earliest-deadline-first (priority, earliest start, sort order as tie-breakers), never before their
 * predecessors, and puts each one at its earliest feasible start by sweeping the sorted free list from a
 * binary-searched position; placed time is cut out of the free list. Several orderings are tried (plain EDF,
 * EDF with deadlines propagated to predecessors, shortest-first within a deadline, release first, priority
 * first) and the best result kept: most tasks, then higher priorities, then earlier starts. Plain EDF is one
 * of the passes, so the solver never places fewer tasks than EDF greedy. A bounded repair step then moves
 * single units to the front (unplaced) or back (placed) of the best order and keeps what improves the result.
 */
import type { Interval } from './intervals.js';
import { planUnits, type Unit, unitLowerBound } from './solver-blocks.js';
import type { Bound, Dependency, SlotMs } from './solver-rules.js';
import { FreeList, Heap } from './solver-structures.js';

export type { Dependency, DependencyType } from './solver-rules.js';

export interface SolverTask {
  id: string;
  durationMin: number;
  /** 1 is the highest. */
  priority: number;
  deadline?: Date;
  earliestStart?: Date;
  status: string;
  /** A task whose parent is an open task of the same input is placed inside the parent's block. */
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
  /**
   * The constraint that bound the start: 'now', 'window_start', 'earliest_start', 'dependency:<id>',
   * 'busy_or_working_hours'; a descendant placed with its parent's block: 'block:<root task id>'.
   */
  explanation: string;
}

export interface SolverResult {
  placements: Placement[];
  unscheduled: { taskId: string; reason: UnscheduledReason }[];
}

const MINUTE = 60_000;
/** Task-passes the repair step may spend (a pass over n units costs n). */
const REPAIR_WORK = 20_000;

/** `now` rounded up to the next 5-minute mark (unchanged when already on one). */
export function roundUpToFiveMinutes(now: Date): number {
  const step = 5 * MINUTE;
  return Math.ceil(now.getTime() / step) * step;
}

/** What every pass shares: the units, their dependency graph, the fixed slots and the bounds. */
export interface Prepared {
  units: Unit<SolverTask>[];
  closed: SolverResult['unscheduled'];
  /** Unit id of every member of a schedulable unit. */
  unitOf: Map<string, string>;
  /** Per dependency edge between two units: predecessor unit -> successor unit ids. */
  successors: Map<string, string[]>;
  fixed: Map<string, SlotMs>;
  done: Set<string>;
  from: number;
  to: number;
  nowMs: number;
}

export function doneIdsOf(input: SolverInput): Set<string> {
  const done = new Set(input.doneTaskIds ?? []);
  for (const task of input.tasks) if (task.status === 'done') done.add(task.id);
  return done;
}

export function prepare(input: SolverInput): Prepared {
  const done = doneIdsOf(input);
  const plan = planUnits(input.tasks, input.dependencies, done);
  const closed: SolverResult['unscheduled'] = [
    ...plan.idle,
    ...plan.blocked.map((taskId) => ({ taskId, reason: 'blocked_by_dependency' as const })),
  ];
  const unitOf = new Map<string, string>();
  for (const unit of plan.units) for (const m of unit.members) unitOf.set(m.task.id, unit.id);
  const successors = new Map<string, string[]>();
  for (const unit of plan.units)
    for (const { dep } of unit.external) {
      const pred = unitOf.get(dep.dependsOnId);
      if (pred === undefined || done.has(dep.dependsOnId)) continue;
      successors.set(pred, [...(successors.get(pred) ?? []), unit.id]);
    }
  const fixed = new Map<string, SlotMs>();
  for (const slot of input.fixed ?? []) fixed.set(slot.id, { start: slot.start.getTime(), end: slot.end.getTime() });
  const nowMs = roundUpToFiveMinutes(input.now);
  return {
    units: plan.units,
    closed,
    unitOf,
    successors,
    fixed,
    done,
    from: Math.max(input.window.start.getTime(), nowMs),
    to: input.window.end.getTime(),
    nowMs,
  };
}

type OrderKey = (unit: Unit<SolverTask>) => number[];

/** The deadline a unit inherits from its successors: it must end early enough for them to fit. */
function propagatedDeadlines(p: Prepared): Map<string, number> {
  const byId = new Map(p.units.map((u) => [u.id, u]));
  const memo = new Map<string, number>();
  const visit = (id: string, depth: number): number => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    let deadline = byId.get(id)?.deadline ?? Number.POSITIVE_INFINITY;
    memo.set(id, deadline); // cycle guard
    if (depth < 10_000)
      for (const next of p.successors.get(id) ?? []) {
        const succ = byId.get(next);
        if (succ) deadline = Math.min(deadline, visit(next, depth + 1) - succ.duration);
      }
    memo.set(id, deadline);
    return deadline;
  };
  for (const unit of p.units) visit(unit.id, 0);
  return memo;
}

function compareKeys(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0 && !Number.isNaN(d)) return d;
  }
  return 0;
}

/** Places `unit` at its earliest feasible start in `free`, or says why it cannot be placed. */
export function placeUnit(
  unit: Unit<SolverTask>,
  bound: Bound | 'blocked',
  free: FreeList,
  to: number,
): { start: number } | { reason: UnscheduledReason } {
  if (bound === 'blocked') return { reason: 'blocked_by_dependency' };
  const until = Math.min(to, unit.deadline);
  const start = free.earliest(bound.at, unit.duration, until);
  if (start >= 0) return { start };
  const late = until < to && free.earliest(bound.at, unit.duration, to) >= 0;
  return { reason: late ? 'no_slot_before_deadline' : 'no_slot_in_window' };
}

/** The placements of a unit put at `start`: the root names its bound, its descendants the block. */
export function unitPlacements(unit: Unit<SolverTask>, start: number, rootExplanation: string): Placement[] {
  const out: Placement[] = [];
  for (const member of unit.members) {
    const from = start + member.offset;
    out.push({
      taskId: member.task.id,
      start: new Date(from),
      end: new Date(from + member.span),
      explanation: member.task.id === unit.id ? rootExplanation : `block:${unit.id}`,
    });
  }
  return out;
}

/** One greedy pass in the order `key` gives among units whose predecessors are resolved. */
function greedyPass(input: SolverInput, p: Prepared, base: FreeList, key: OrderKey): SolverResult {
  const free = base.clone();
  const byId = new Map(p.units.map((u) => [u.id, u]));
  const placed = new Map<string, SlotMs>(p.fixed);
  const pending = new Map<string, number>(p.units.map((u) => [u.id, 0]));
  for (const list of p.successors.values()) for (const id of list) pending.set(id, (pending.get(id) ?? 0) + 1);
  const keys = new Map(p.units.map((u) => [u.id, [...key(u), u.root.sortOrder]]));
  const keyOf = (u: Unit<SolverTask>) => keys.get(u.id) ?? [];
  const byKey = (a: Unit<SolverTask>, b: Unit<SolverTask>) =>
    compareKeys(keyOf(a), keyOf(b)) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const heap = new Heap<Unit<SolverTask>>(
    byKey,
    p.units.filter((u) => pending.get(u.id) === 0),
  );
  const result: SolverResult = { placements: [], unscheduled: [] };
  const settled = new Set<string>();
  const bounds = { nowMs: p.nowMs, windowStart: input.window.start.getTime() };
  while (heap.size > 0) {
    const unit = heap.pop() as Unit<SolverTask>;
    settled.add(unit.id);
    const bound = unitLowerBound(unit, placed, p.done, bounds);
    const outcome = placeUnit(unit, bound, free, p.to);
    if ('reason' in outcome) {
      for (const m of unit.members) result.unscheduled.push({ taskId: m.task.id, reason: outcome.reason });
    } else if (bound !== 'blocked') {
      const { start } = outcome;
      free.take(start, start + unit.duration);
      for (const pl of unitPlacements(unit, start, start > bound.at ? 'busy_or_working_hours' : bound.by)) {
        placed.set(pl.taskId, { start: pl.start.getTime(), end: pl.end.getTime() });
        result.placements.push(pl);
      }
    }
    for (const next of p.successors.get(unit.id) ?? []) {
      const left = (pending.get(next) ?? 0) - 1;
      pending.set(next, left);
      const succ = byId.get(next);
      if (left === 0 && succ) heap.push(succ);
    }
  }
  // Units never released sit on a dependency cycle.
  for (const unit of p.units)
    if (!settled.has(unit.id))
      for (const m of unit.members) result.unscheduled.push({ taskId: m.task.id, reason: 'blocked_by_dependency' });
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
  const eff = (u: Unit<SolverTask>) => propagated.get(u.id) ?? u.deadline;
  const orders: OrderKey[] = [
    (u) => [u.deadline, u.priority, u.release],
    (u) => [eff(u), u.priority, u.release],
    (u) => [eff(u), u.duration, u.priority],
    (u) => [u.release, eff(u), u.priority],
    (u) => [u.priority, eff(u), u.release],
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
  // Repair: fragmented free time defeats EDF. Moving one unit to the front (an unplaced one) or to the back (a
  // placed one) of the best order and keeping the change when the result improves; bounded so large runs stay
  // fast (each try is one pass over every unit).
  let budget = Math.floor(REPAIR_WORK / Math.max(1, p.units.length));
  const seedOrder = bestOrder;
  const rank = new Map<string, number>();
  const ranked =
    (ranks: Map<string, number>): OrderKey =>
    (u) => [ranks.get(u.id) ?? 1, ...seedOrder(u)];
  const unitIds = (ids: string[]) => [...new Set(ids.map((id) => p.unitOf.get(id) ?? id))];
  let improved = true;
  while (improved && budget > 0) {
    improved = false;
    const moves: [string, number][] = [
      ...unitIds(best.unscheduled.filter((u) => u.reason !== 'blocked_by_dependency').map((u) => u.taskId)).map(
        (id): [string, number] => [id, 0],
      ),
      ...unitIds(best.placements.map((pl) => pl.taskId)).map((id): [string, number] => [id, 2]),
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
