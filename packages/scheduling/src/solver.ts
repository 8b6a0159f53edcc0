/**
 * The builtin solver: places tasks into free time (working time minus no-go minus busy, computed by the
 * caller) under the contract's hard rules, for the contract's objective ("Area C: scheduling runs and
 * decisions"; ADR 052): the most tasks of priority 1, then of 2, ... 5; then, priority 1 first, the earliest
 * starts; then the fewest tasks moved from a slot they already had. Deadlines and every hard rule are constraints.
 *
 * It places units (solver-blocks.ts): a task with open children is one block of its rolled-up duration holding
 * its descendants in `sort_order`; any other task is a unit of one. The search (solver-search.ts) decodes orders
 * of units into schedules, each unit at its earliest feasible start (solver-decode.ts): seed orders (plain EDF,
 * priority-first and shortest-first greedy among them, so the result is never worse than any of the three),
 * a branch and bound for small runs, and a local search with a budget that scales with the run. The chosen
 * schedule passes the rule checker (solver-verify.ts) before it is returned.
 */
import type { Interval } from './intervals.js';
import { planUnits, type Unit, unitLowerBound } from './solver-blocks.js';
import { compareScores, decode, ranksBy, scoreOf } from './solver-decode.js';
import { buildModel, type Model } from './solver-model.js';
import type { Bound, Dependency, SlotMs } from './solver-rules.js';
import { branchAndBound, type Candidate, localSearch, searchBudget, seedRanks } from './solver-search.js';
import { FreeList } from './solver-structures.js';
import { verifySchedule } from './solver-verify.js';

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

/** The greedy baselines the solver is never worse than (ADR 052): one decode in the rule's order. */
export type GreedyRule = 'edf' | 'priority' | 'shortest';
const GREEDY_SEED: Record<GreedyRule, number> = { edf: 0, priority: 1, shortest: 2 };

function modelOf(input: SolverInput): { p: Prepared; base: FreeList; m: Model } {
  const p = prepare(input);
  const base = FreeList.from(input.free, p.from, p.to, (input.bufferMin ?? 0) * 60_000);
  const current = new Map<string, number>();
  for (const t of input.tasks) if (t.currentStart) current.set(t.id, t.currentStart.getTime());
  return { p, base, m: buildModel(p, current) };
}

export function solveGreedy(input: SolverInput, rule: GreedyRule): SolverResult {
  const { p, base, m } = modelOf(input);
  const rank = seedRanks(m)[GREEDY_SEED[rule]] as Float64Array;
  return checked(input, p, m, base, decode(m, rank, base));
}

export function solve(input: SolverInput): SolverResult {
  const { p, base, m } = modelOf(input);
  if (m.n === 0) return { placements: [], unscheduled: [...p.closed] };
  const budget = { left: searchBudget(m.n) };
  let best: Candidate | undefined;
  let bestRank: Float64Array = new Float64Array(m.n);
  for (const rank of seedRanks(m)) {
    budget.left -= m.n;
    const starts = decode(m, rank, base);
    const candidate = { starts, score: scoreOf(m, starts) };
    if (!best || compareScores(candidate.score, best.score) < 0) {
      best = candidate;
      bestRank = rank;
    }
  }
  const exact = branchAndBound(m, base, best as Candidate);
  let chosen: Candidate = exact;
  if (!exact.complete) {
    if (exact.starts !== best?.starts)
      bestRank = ranksBy(m, (j) => [Number.isNaN(exact.starts[j] as number) ? 1 : 0, exact.starts[j] as number]);
    chosen = localSearch(m, base, exact, bestRank, budget);
  }
  return checked(input, p, m, base, fillGaps(m, base, chosen.starts));
}

/** Places any unit the chosen schedule left out that still fits in what is left (it can only add tasks). */
function fillGaps(m: Model, base: FreeList, starts: Float64Array): Float64Array {
  const free = remainingFree(m, base, starts);
  for (const j of m.topo) {
    if (!Number.isNaN(starts[j] as number) || m.blocked[j]) continue;
    let at = m.rel[j] as number;
    for (const e of m.preds[j] ?? []) at = Math.max(at, (starts[e.to] as number) + e.c);
    if (Number.isNaN(at)) continue;
    const start = free.earliest(at, m.dur[j] as number, m.dl[j] as number);
    if (start < 0) continue;
    free.take(start, start + (m.dur[j] as number));
    starts[j] = start;
  }
  return starts;
}

function remainingFree(m: Model, base: FreeList, starts: Float64Array): FreeList {
  const free = base.clone();
  for (let j = 0; j < m.n; j++) {
    const s = starts[j] as number;
    if (!Number.isNaN(s)) free.take(s, s + (m.dur[j] as number));
  }
  return free;
}

/**
 * The schedule as the solver's answer, checked against every hard rule (solver-verify.ts) before it is
 * returned; a unit with a breach (a defect of the search) is left out with its dependants, so nothing that
 * breaks a rule is ever written.
 */
function checked(input: SolverInput, p: Prepared, m: Model, base: FreeList, starts: Float64Array): SolverResult {
  for (;;) {
    const result = assemble(input, p, m, base, starts);
    const breaches = verifySchedule(input, result.placements, p.done);
    if (breaches.length === 0) return result;
    for (const b of breaches) {
      const j = m.index.get(p.unitOf.get(b.taskId) ?? b.taskId);
      if (j !== undefined) starts[j] = Number.NaN;
    }
  }
}

function assemble(input: SolverInput, p: Prepared, m: Model, base: FreeList, starts: Float64Array): SolverResult {
  const free = remainingFree(m, base, starts);
  const placed = new Map<string, SlotMs>(p.fixed);
  const endsAt = new Map<number, string>();
  const order: number[] = [];
  for (let j = 0; j < m.n; j++) {
    const s = starts[j] as number;
    if (Number.isNaN(s)) continue;
    const unit = m.units[j] as Unit<SolverTask>;
    for (const mem of unit.members) placed.set(mem.task.id, { start: s + mem.offset, end: s + mem.offset + mem.span });
    endsAt.set(s + unit.duration, unit.id);
    order.push(j);
  }
  order.sort((a, b) => (starts[a] as number) - (starts[b] as number));
  const bounds = { nowMs: p.nowMs, windowStart: input.window.start.getTime() };
  const placements: Placement[] = [];
  for (const j of order) {
    const unit = m.units[j] as Unit<SolverTask>;
    const start = starts[j] as number;
    const bound = unitLowerBound(unit, placed, p.done, bounds);
    const by =
      bound === 'blocked' || start > bound.at
        ? endsAt.has(start)
          ? `after:${endsAt.get(start)}`
          : 'busy_or_working_hours'
        : bound.by;
    placements.push(...unitPlacements(unit, start, by));
  }
  const unscheduled: SolverResult['unscheduled'] = [];
  for (let j = 0; j < m.n; j++) {
    if (!Number.isNaN(starts[j] as number)) continue;
    const unit = m.units[j] as Unit<SolverTask>;
    const bound = m.blocked[j] ? 'blocked' : unitLowerBound(unit, placed, p.done, bounds);
    const outcome = placeUnit(unit, bound, free, p.to);
    const reason = 'reason' in outcome ? outcome.reason : 'no_slot_in_window';
    for (const mem of unit.members) unscheduled.push({ taskId: mem.task.id, reason });
  }
  return { placements, unscheduled: [...p.closed, ...unscheduled] };
}
