import { type Unit, unitLowerBound } from './solver-blocks.js';
import { compareScores, decode, ranksBy, scoreOf } from './solver-decode.js';
import { EXCHANGES_WORK, exchangeForMore, reorderPlaced } from './solver-exchange.js';
import {
  type Placement,
  type Prepared,
  placeUnit,
  prepare,
  type SolverInput,
  type SolverResult,
  type SolverTask,
  unitPlacements,
} from './solver-input.js';
import { buildModel, type Model } from './solver-model.js';
import { neighbourhoodSearch } from './solver-neighbourhood.js';
import { independentParts } from './solver-parts.js';
import type { SlotMs } from './solver-rules.js';
import { branchAndBound, type Candidate, localSearch, searchBudget, seedRanks } from './solver-search.js';
import { FreeList } from './solver-structures.js';
import { verifySchedule } from './solver-verify.js';
import { walkForCounts } from './solver-walk.js';

export * from './solver-input.js';
export type { Dependency, DependencyType } from './solver-rules.js';

/** The greedy baselines the solver is never worse than (ADR 052): one decode in the rule's order. */
export type GreedyRule = 'edf' | 'priority' | 'shortest';
const GREEDY_SEED: Record<GreedyRule, number> = { edf: 0, priority: 1, shortest: 2 };

function modelOf(input: SolverInput, p = prepare(input)): { p: Prepared; base: FreeList; m: Model } {
  const base = FreeList.from(input.free, p.from, p.to, (input.bufferMin ?? 0) * 60_000);
  const current = new Map<string, number>();
  for (const t of input.tasks) if (t.currentStart) current.set(t.id, t.currentStart.getTime());
  return { p, base, m: buildModel(p, current) };
}

/**
 * Runs of at most this many units get the large-neighbourhood search and the walk for more tasks after the local
 * search; the neighbourhood search's work per unit and at most (each of its two passes).
 */
const NEIGHBOURHOOD_UNITS = 60;
const NEIGHBOURHOOD_WORK_PER_UNIT = 40_000;
const NEIGHBOURHOOD_WORK_MAX = 1_200_000;
/** Exchanges for more tasks in a row at most (each followed by a neighbourhood search). */
const EXCHANGE_ROUNDS = 2;

export function solveGreedy(input: SolverInput, rule: GreedyRule): SolverResult {
  const { p, base, m } = modelOf(input);
  const rank = seedRanks(m)[GREEDY_SEED[rule]] as Float64Array;
  return checked(input, p, m, base, decode(m, rank, base));
}

/** The best schedule of the run: each independent part (solver-parts.ts) solved on its own. */
export function solve(input: SolverInput): SolverResult {
  const p = prepare(input);
  const parts = independentParts(input, p);
  if (parts.length === 1) return solvePart(input, p);
  const closed = new Set(p.closed.map((c) => c.taskId));
  const results = parts.map((part) => solvePart(part));
  return {
    placements: results.flatMap((r) => r.placements),
    // Tasks in no unit are in every part: their reasons are the whole run's, once.
    unscheduled: [...p.closed, ...results.flatMap((r) => r.unscheduled.filter((u) => !closed.has(u.taskId)))],
  };
}

function solvePart(input: SolverInput, prepared?: Prepared): SolverResult {
  const { p, base, m } = modelOf(input, prepared);
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
    if (m.n <= NEIGHBOURHOOD_UNITS) chosen = exchangeAndReorder(m, base, improveSmallRun(m, base, chosen));
  }
  return checked(input, p, m, base, fillGaps(m, base, chosen.starts));
}

/**
 * Runs of at most NEIGHBOURHOOD_UNITS units: the neighbourhood search; then the walk for more tasks, and when it
 * finds some, the insertion climb and the neighbourhood search again from there (the better result is kept).
 */
function improveSmallRun(m: Model, base: FreeList, start: Candidate): Candidate {
  const work = Math.min(NEIGHBOURHOOD_WORK_PER_UNIT * m.n, NEIGHBOURHOOD_WORK_MAX);
  const found = neighbourhoodSearch(m, base, start, { left: work });
  const more = walkForCounts(m, base, found.starts);
  if (!more) return found;
  const rank = ranksBy(m, (j) => [Number.isNaN(more[j] as number) ? 1 : 0, more[j] as number]);
  const climbed = localSearch(m, base, { starts: more, score: scoreOf(m, more) }, rank, {
    left: searchBudget(m.n),
  });
  const again = neighbourhoodSearch(m, base, climbed, { left: work });
  return compareScores(again.score, found.score) < 0 ? again : found;
}

/**
 * After the searches above: exchanges for more tasks (each one found is improved by the neighbourhood search), then
 * the placed units re-placed exactly for the least start sums (solver-exchange.ts).
 */
function exchangeAndReorder(m: Model, base: FreeList, start: Candidate): Candidate {
  let best = start;
  const budget = { left: EXCHANGES_WORK };
  for (let round = 0; round < EXCHANGE_ROUNDS; round++) {
    const more = exchangeForMore(m, base, best, budget);
    if (!more) break;
    const work = Math.min(NEIGHBOURHOOD_WORK_PER_UNIT * m.n, NEIGHBOURHOOD_WORK_MAX);
    best = neighbourhoodSearch(m, base, more, { left: work });
  }
  const reordered = reorderPlaced(m, base, best);
  if (reordered === best) return best;
  const work = Math.min(NEIGHBOURHOOD_WORK_PER_UNIT * m.n, NEIGHBOURHOOD_WORK_MAX);
  return neighbourhoodSearch(m, base, reordered, { left: work });
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
