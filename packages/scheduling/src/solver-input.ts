/**
 * What the solver takes and gives (its input, placements and reasons) and the preparation every pass shares.
 * Kept apart from solver.ts so the search, decoder, checker and candidates import these without importing the
 * solver that imports them.
 */
import type { Interval } from './intervals.js';
import { type BlockTask, planUnits, type Unit } from './solver-blocks.js';
import type { Bound, Dependency, SlotMs } from './solver-rules.js';
import type { FreeList } from './solver-structures.js';

/** A task to place: the fields blocks are built from, and its current slot. */
export interface SolverTask extends BlockTask {
  /** Start of the slot the task already has: the objective prefers leaving it there (fewer tasks moved). */
  currentStart?: Date;
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
  /**
   * Minutes kept free between the blocks this run places (settings `buffer_min`); the caller widens the
   * busy time it took out of `free` by the same amount. Tasks of one block are not separated.
   */
  bufferMin?: number;
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
   * The constraint that bound the start: 'now', 'window_start', 'earliest_start', 'dependency:<id>'; 'after:<id>'
   * when it starts where another task of the run (placed first by the objective) ends; 'busy_or_working_hours'
   * when free time pushed it further; a descendant placed with its parent's block: 'block:<root task id>'.
   */
  explanation: string;
}

export interface SolverResult {
  placements: Placement[];
  unscheduled: { taskId: string; reason: UnscheduledReason }[];
}

const MINUTE = 60_000;

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
      const list = successors.get(pred);
      if (list) list.push(unit.id);
      else successors.set(pred, [unit.id]);
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
