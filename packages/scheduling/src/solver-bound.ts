/**
 * The branch and bound's capacity bound (ADR 052). The plain optimistic score counts every unit that could still
 * start; in an overloaded run most of them cannot all fit. Here the free time left after the last start bounds
 * the counts, class by class: each member of a unit is charged its share of the unit's duration, the most members
 * of priority 1 that fit in the free time (a fractional knapsack, cheapest members first) bound that class's count,
 * the least time that count needs is taken off before priority 2, and so on. Any schedule below the node places
 * units inside that free time, so its per-priority counts, read left to right, never beat these; and at a count
 * reached, its start sum is at least the smallest earliest starts of that many members.
 * For a search over a required set (every unit must be placed): the packing test by deadline, and the record of
 * states reached before (the same units placed in another order, ending at the same time, are searched once).
 */
import { compareScores, type Score } from './solver-decode.js';
import { type Model, PRIORITIES } from './solver-model.js';
import type { FreeList } from './solver-structures.js';

/**
 * Tightens `optimistic` (the placed units plus every candidate at its earliest start `at`) in place. `placedScore`
 * is the placed units' part alone; `from` the earliest any candidate can start.
 */
export function tightenByCapacity(
  m: Model,
  optimistic: Score,
  placedScore: Score,
  candidates: readonly { j: number; at: number }[],
  free: FreeList,
  from: number,
): void {
  if (candidates.length === 0) return;
  let until = Number.NEGATIVE_INFINITY;
  for (const { j } of candidates) until = Math.max(until, m.dl[j] as number);
  let capacity = 0;
  for (let i = free.firstEndingAfter(from); i < free.starts.length; i++) {
    const s = Math.max(free.starts[i] as number, from);
    const e = Math.min(free.ends[i] as number, until);
    if (s >= until) break;
    if (e > s) capacity += e - s;
  }
  const byShare = [...candidates].sort((a, b) => share(m, a.j) - share(m, b.j));
  for (let k = 0; k < PRIORITIES; k++) {
    let all = 0;
    for (const { j } of candidates) all += m.count[j * PRIORITIES + k] as number;
    if (all === 0) continue;
    // The most members of priority k+1 that fit, and the least time that many need.
    let fit = 0;
    let left = capacity;
    for (const { j } of byShare) {
      const c = m.count[j * PRIORITIES + k] as number;
      if (c === 0) continue;
      const per = share(m, j);
      const take = Math.min(c, per === 0 ? c : left / per);
      fit += take;
      left -= take * per;
      if (take < c) break;
    }
    const reachable = Math.floor(fit + 1e-9);
    if (reachable >= all) {
      capacity -= spend(m, byShare, k, all);
      continue;
    }
    optimistic[k] = (placedScore[k] as number) - reachable;
    const earliest: number[] = [];
    for (const { j, at } of candidates)
      for (let c = m.count[j * PRIORITIES + k] as number; c > 0; c--) earliest.push(at);
    earliest.sort((a, b) => a - b);
    let sum = placedScore[PRIORITIES + k] as number;
    for (let r = 0; r < reachable; r++) sum += (earliest[r] as number) - m.origin;
    optimistic[PRIORITIES + k] = sum;
    capacity -= spend(m, byShare, k, reachable);
  }
}

/** Each member's share of its unit's duration. */
function share(m: Model, j: number): number {
  return (m.dur[j] as number) / Math.max(1, m.size[j] as number);
}

/** The least time `count` members of priority k+1 take, cheapest first (fractional). */
function spend(m: Model, byShare: readonly { j: number }[], k: number, count: number): number {
  let need = count;
  let time = 0;
  for (const { j } of byShare) {
    if (need <= 0) break;
    const c = Math.min(need, m.count[j * PRIORITIES + k] as number);
    time += c * share(m, j);
    need -= c;
  }
  return time;
}

/**
 * Whether the units of a required set still to be placed (all after `from`, each in one free piece) can fit: for
 * every deadline, the units due by it take no more than the free time between `from` and it, each piece counted
 * only as far as some of the units can fill it (the largest sum of their durations within its length: a packing
 * leaves the rest of the piece empty).
 */
export function fitsByDeadlines(m: Model, units: readonly { j: number }[], free: FreeList, from: number): boolean {
  if (units.length === 0) return true;
  const byDeadline = units.map(({ j }) => j).sort((a, b) => (m.dl[a] as number) - (m.dl[b] as number));
  const usable = fillable(byDeadline.map((j) => m.dur[j] as number));
  let i = free.firstEndingAfter(from);
  let capacity = 0;
  let need = 0;
  // Pieces wholly before the current deadline are added once; the one it cuts is counted up to it.
  for (const j of byDeadline) {
    const due = m.dl[j] as number;
    need += m.dur[j] as number;
    while (i < free.starts.length && (free.ends[i] as number) <= due) {
      capacity += usable((free.ends[i] as number) - Math.max(free.starts[i] as number, from));
      i++;
    }
    const partial = i < free.starts.length ? usable(due - Math.max(free.starts[i] as number, from)) : 0;
    if (need > capacity + partial) return false;
  }
  return true;
}

/** Sums of durations finer than this many steps are not tabulated (each piece then counts whole). */
const MAX_FILL_STEPS = 4_096;

/** The largest sum of distinct `durations` within a length, as a function of the length (a subset-sum table). */
function fillable(durations: readonly number[]): (length: number) => number {
  let step = 0;
  let total = 0;
  for (const d of durations) {
    step = gcd(step, d);
    total += d;
  }
  if (step <= 0 || total / step > MAX_FILL_STEPS) return (length) => Math.max(0, length);
  const size = Math.round(total / step);
  const reachable = new Uint8Array(size + 1);
  reachable[0] = 1;
  for (const d of durations) {
    const k = Math.round(d / step);
    for (let x = size; x >= k; x--) if (reachable[x - k]) reachable[x] = 1;
  }
  const below = new Float64Array(size + 1);
  for (let x = 1; x <= size; x++) below[x] = reachable[x] ? x * step : (below[x - 1] as number);
  return (length) => (length <= 0 ? 0 : (below[Math.min(size, Math.floor(length / step))] as number));
}

function gcd(a: number, b: number): number {
  let x = Math.abs(a);
  let y = Math.abs(b);
  while (y > 0.5) [x, y] = [y, x % y];
  return x;
}

/**
 * What decides the search below a node: the units placed, the end of the last one (every later unit starts after
 * its start, so no earlier free time is usable, and the time up to its end is taken), and the starts of the placed
 * units a unit still to place depends on, or that depend on one (they bound its start from below or above).
 */
export function stateKey(m: Model, placed: Float64Array, lastEnd: number): string {
  let mask = '';
  const bounds: number[] = [];
  for (let j = 0; j < m.n; j++) {
    const s = placed[j] as number;
    if (Number.isNaN(s)) {
      mask += '0';
      continue;
    }
    mask += '1';
    const edges = [...(m.succs[j] ?? []), ...(m.preds[j] ?? [])];
    if (edges.some((e) => Number.isNaN(placed[e.to] as number))) bounds.push(j, s);
  }
  return `${mask}|${lastEnd}|${bounds.join(',')}`;
}

/** Whether `key` was reached before with a score at least as good; records this one otherwise. */
export function reachedBefore(seen: Map<string, Score>, key: string, score: Score): boolean {
  const before = seen.get(key);
  if (before && compareScores(before, score) <= 0) return true;
  seen.set(key, Float64Array.from(score));
  return false;
}
