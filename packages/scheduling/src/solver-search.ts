/**
 * The search for the contract's objective (ADR 052): seed orders (the three greedy baselines among them), a
 * branch and bound over schedules built in start-time order for small runs, and a local search over orders
 * (insertions, then perturbed restarts) with a work budget that scales with the run. Deterministic: the
 * perturbations come from a fixed-seed generator.
 */

import { fitsByDeadlines, reachedBefore, stateKey, tightenByCapacity } from './solver-bound.js';
import { addToScore, compareScores, decode, ranksBy, SCORE_LENGTH, type Score, scoreOf } from './solver-decode.js';
import { type Model, PRIORITIES, possible } from './solver-model.js';
import type { FreeList } from './solver-structures.js';

export interface Candidate {
  starts: Float64Array;
  score: Score;
}

/** Work is counted in unit placements tried; these bound a run's search (see ADR 052 for the figures). */
const SMALL_RUN_WORK = 100_000;
/** Perturbed restarts in a row without improvement after which the local search stops early. */
const STALE_RESTARTS = 25;
const LARGE_RUN_DECODES = 40;
/** Beyond 2,500 units the large-run budget stops growing (5,000 units: 20 decodes). */
const LARGE_RUN_WORK = 100_000;
/** Runs with at most this many placeable units get the branch and bound first. */
const EXACT_UNITS = 24;
const EXACT_WORK = 300_000;

export interface Budget {
  left: number;
}

export function searchBudget(n: number): number {
  return n <= 60 ? SMALL_RUN_WORK : Math.min(LARGE_RUN_DECODES * n, LARGE_RUN_WORK);
}

/**
 * The seed rules. Plain EDF, priority-first and shortest-first are the greedy baselines the result is never
 * worse than; the others use the deadlines and earliest starts propagated through the dependency graph.
 */
export function seedRanks(m: Model): Float64Array[] {
  const d = (j: number) => m.units[j]?.deadline ?? Number.POSITIVE_INFINITY;
  const prio = (j: number) => m.priority[j] as number;
  const lsEff = (j: number) => m.ls[j] as number;
  const es = (j: number) => m.es[j] as number;
  const dur = (j: number) => m.dur[j] as number;
  const sort = (j: number) => m.units[j]?.root.sortOrder ?? 0;
  return [
    ranksBy(m, (j) => [d(j), prio(j), m.units[j]?.release ?? 0, sort(j)]),
    ranksBy(m, (j) => [prio(j), d(j), es(j), sort(j)]),
    ranksBy(m, (j) => [dur(j), d(j), prio(j), sort(j)]),
    ranksBy(m, (j) => [lsEff(j), prio(j), es(j)]),
    ranksBy(m, (j) => [prio(j), lsEff(j), es(j)]),
    ranksBy(m, (j) => [prio(j), es(j), lsEff(j)]),
    ranksBy(m, (j) => [prio(j), dur(j), lsEff(j)]),
    ranksBy(m, (j) => [lsEff(j), dur(j), prio(j)]),
    ranksBy(m, (j) => [es(j), lsEff(j), prio(j)]),
  ];
}

/** Decodes `rank` and keeps it in `best` when it scores better. */
function evaluate(m: Model, rank: Float64Array, base: FreeList, budget: Budget): Candidate {
  budget.left -= m.n;
  const starts = decode(m, rank, base);
  return { starts, score: scoreOf(m, starts) };
}

/** A small deterministic generator (mulberry32) for the perturbations. */
export function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ranksOf = (order: readonly number[]) => {
  const rank = new Float64Array(order.length);
  order.forEach((j, r) => {
    rank[j] = r;
  });
  return rank;
};

/**
 * Local search over orders from `start`: every insertion of one unit at another position (unplaced units and
 * higher priorities first), first improvement, until none improves; then perturbed restarts (two random
 * insertions) from the best, while the budget lasts. Large runs try only the moves most likely to pay: an
 * unplaced unit to the front, a placed one of the lowest priority to the back.
 */
export function localSearch(m: Model, base: FreeList, start: Candidate, rank: Float64Array, budget: Budget): Candidate {
  let best = start;
  let order = Array.from({ length: m.n }, (_, j) => j).sort((a, b) => (rank[a] as number) - (rank[b] as number));
  const small = m.n <= 60;
  const random = generator(0x5eed);
  const tryOrder = (next: number[]): boolean => {
    const c = evaluate(m, ranksOf(next), base, budget);
    if (compareScores(c.score, best.score) >= 0) return false;
    best = c;
    order = next;
    return true;
  };
  const movers = () =>
    order
      .filter((j) => !m.blocked[j])
      .sort(
        (a, b) =>
          Number(!Number.isNaN(best.starts[a] as number)) - Number(!Number.isNaN(best.starts[b] as number)) ||
          (m.priority[a] as number) - (m.priority[b] as number),
      );
  const insert = (list: number[], j: number, at: number) => {
    const without = list.filter((x) => x !== j);
    without.splice(at, 0, j);
    return without;
  };
  const climb = (): void => {
    let improved = true;
    while (improved && budget.left > 0) {
      improved = false;
      for (const j of movers()) {
        if (budget.left <= 0) return;
        const positions = small
          ? Array.from({ length: m.n }, (_, k) => k)
          : Number.isNaN(best.starts[j] as number)
            ? [0]
            : [m.n - 1];
        for (const at of positions) {
          if (order[at] === j) continue;
          if (budget.left <= 0) return;
          if (tryOrder(insert(order, j, at))) {
            improved = true;
            break;
          }
        }
        if (improved) break;
      }
    }
  };
  climb();
  if (!small) return best;
  let stale = 0;
  while (budget.left > 0 && stale < STALE_RESTARTS) {
    const kept = { best, order };
    let next = order;
    for (let k = 0; k < 2; k++)
      next = insert(next, next[Math.floor(random() * m.n)] as number, Math.floor(random() * m.n));
    const c = evaluate(m, ranksOf(next), base, budget);
    best = c;
    order = next;
    climb();
    if (compareScores(kept.best.score, best.score) <= 0) {
      best = kept.best;
      order = kept.order;
      stale++;
    } else stale = 0;
  }
  return best;
}

/**
 * Branch and bound over schedules built in start-time order: each step puts one more unit at its earliest
 * feasible start after the last one's (every optimal schedule is reached this way, its units taken by start;
 * ADR 052 names the one exception). Each node is itself a schedule (what is not placed stays out); a node whose
 * optimistic score (every unit that could still fit, at its earliest start, counts capped by the free time left:
 * solver-bound.ts) cannot beat the best is cut. `work` bounds the unit evaluations (the neighbourhood search gives
 * each window a small share).
 */
export function branchAndBound(
  m: Model,
  base: FreeList,
  incumbent: Candidate,
  work = EXACT_WORK,
  /** Units every schedule of this search must place (a mask by unit; none when absent). */
  required?: Uint8Array,
): Candidate & { complete: boolean; workLeft: number } {
  // A unit counts only with its predecessors placed: one after a unit that can never be placed is not live.
  const isLive = new Uint8Array(m.n);
  for (const j of m.topo) isLive[j] = possible(m, j) && (m.preds[j] ?? []).every((e) => isLive[e.to]) ? 1 : 0;
  const live = Array.from(m.topo).filter((j) => isLive[j]);
  let best = incumbent;
  if (live.length === 0) return { ...best, complete: true, workLeft: work };
  if (live.length > EXACT_UNITS) return { ...best, complete: false, workLeft: work };
  const budget: Budget = { left: work };
  // Interchangeable units (same length, bounds and weights, no dependency, no current slot) are taken in index
  // order only: the other orders give the same schedules relabelled.
  const twinBefore = new Int32Array(m.n).fill(-1);
  const lastOfKind = new Map<string, number>();
  for (let j = 0; j < m.n; j++) {
    if ((m.preds[j] ?? []).length > 0 || (m.succs[j] ?? []).length > 0 || (m.current[j] ?? []).length > 0) continue;
    const weights = Array.from({ length: 2 * PRIORITIES }, (_, k) =>
      k < PRIORITIES ? m.count[j * PRIORITIES + k] : m.offsets[j * PRIORITIES + k - PRIORITIES],
    );
    const kind = [m.dur[j], m.rel[j], m.dl[j], ...weights].join('|');
    twinBefore[j] = lastOfKind.get(kind) ?? -1;
    lastOfKind.set(kind, j);
  }
  const placed = new Float64Array(m.n).fill(Number.NaN);
  const valid = new Float64Array(m.n);
  // Nodes reached before, by what decides everything below them (see stateKey): a node reached again with a score
  // no better is cut. Used by the searches over a required set, where packings of the same units in other orders
  // reach the same state many times.
  const seen = required ? new Map<string, Score>() : undefined;
  const evaluateNode = () => {
    // A unit counts only when its predecessors are placed too (one placed first on a negative lag may wait).
    for (const j of m.topo) {
      let s = placed[j] as number;
      for (const e of m.preds[j] ?? []) if (Number.isNaN(valid[e.to] as number)) s = Number.NaN;
      valid[j] = s;
    }
    for (let j = 0; j < m.n; j++) if (m.blocked[j]) valid[j] = Number.NaN;
    if (required) for (let j = 0; j < m.n; j++) if (required[j] && Number.isNaN(valid[j] as number)) return;
    const score = scoreOf(m, valid);
    if (compareScores(score, best.score) < 0) best = { starts: Float64Array.from(valid), score };
  };
  // `placedScore` is the score of the placed units (kept up along the path): no schedule below beats it, so the node
  // itself is checked (with its waiting units left out) only when it could.
  const visit = (last: number, free: FreeList, placedScore: Score, lastEnd: number): void => {
    if (budget.left <= 0) return;
    budget.left -= m.n;
    if (seen && reachedBefore(seen, stateKey(m, placed, lastEnd), placedScore)) return;
    if (compareScores(placedScore, best.score) < 0) evaluateNode();
    const options: { j: number; start: number }[] = [];
    const optimistic = Float64Array.from(placedScore);
    const candidates: { j: number; at: number }[] = [];
    let open = 0;
    for (const j of live) {
      if (!Number.isNaN(placed[j] as number)) continue;
      if (required?.[j]) open++;
      const twin = twinBefore[j] as number;
      if (twin >= 0 && Number.isNaN(placed[twin] as number)) {
        addToScore(m, optimistic, j, Math.max(m.es[j] as number, last + 1));
        candidates.push({ j, at: Math.max(m.es[j] as number, last + 1) });
        continue;
      }
      let lb = Math.max(m.es[j] as number, last + 1);
      let latest = (m.dl[j] as number) - (m.dur[j] as number);
      let waits = false;
      for (const e of m.preds[j] ?? []) {
        const s = placed[e.to] as number;
        if (!Number.isNaN(s)) lb = Math.max(lb, s + e.c);
        else if (e.c >= 0) waits = true;
      }
      for (const e of m.succs[j] ?? []) {
        const s = placed[e.to] as number;
        if (!Number.isNaN(s)) latest = Math.min(latest, s - e.c);
      }
      if (waits) {
        // Its predecessor comes later in time; it can only be placed further down (optimistically at `lb`).
        addToScore(m, optimistic, j, lb);
        candidates.push({ j, at: lb });
        continue;
      }
      budget.left--;
      if (lb > latest) continue;
      const start = free.earliest(lb, m.dur[j] as number, latest + (m.dur[j] as number));
      if (start < 0) continue;
      options.push({ j, start });
      addToScore(m, optimistic, j, start);
      candidates.push({ j, at: start });
    }
    // Every unit of a required set must still fit: one that no longer can ends the branch.
    if (required) {
      const due = candidates.filter(({ j }) => required[j]);
      if (due.length < open || !fitsByDeadlines(m, due, free, last + 1)) return;
    }
    tightenByCapacity(m, optimistic, placedScore, candidates, free, last + 1);
    // The moved count of an optimistic node is not a bound (a unit may keep its slot): compare without it.
    optimistic[2 * PRIORITIES] = Math.min(optimistic[2 * PRIORITIES] as number, 0);
    if (compareScores(optimistic, best.score) >= 0) return;
    // A unit whose predecessors are all placed and that fits entirely before another option's start dominates
    // that option: every later unit starts after it, so its time would be lost, and any schedule below the other
    // option is beaten by the same schedule with this unit moved into that time (one more task, or an earlier one).
    let firstEnd = Number.POSITIVE_INFINITY;
    for (const { j, start } of options)
      if ((m.preds[j] ?? []).every((e) => !Number.isNaN(placed[e.to] as number)))
        firstEnd = Math.min(firstEnd, start + (m.dur[j] as number) + free.gap);
    options.sort((a, b) => (m.priority[a.j] as number) - (m.priority[b.j] as number) || a.start - b.start);
    for (const { j, start } of options) {
      if (start >= firstEnd) continue;
      const next = free.clone();
      next.take(start, start + (m.dur[j] as number));
      placed[j] = start;
      const score = Float64Array.from(placedScore);
      addToScore(m, score, j, start);
      visit(start, next, score, start + (m.dur[j] as number));
      placed[j] = Number.NaN;
      if (budget.left <= 0) return;
    }
  };
  visit(Number.NEGATIVE_INFINITY, base, new Float64Array(SCORE_LENGTH), Number.NEGATIVE_INFINITY);
  return { ...best, complete: budget.left > 0, workLeft: Math.max(0, budget.left) };
}
