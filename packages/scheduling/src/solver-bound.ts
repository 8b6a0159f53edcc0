/**
 * The branch and bound's capacity bound (ADR 052). The plain optimistic score counts every unit that could still
 * start; in an overloaded run most of them cannot all fit. Here the free time left after the last start bounds
 * the counts, class by class: each member of a unit is charged its share of the unit's duration, the most members
 * of priority 1 that fit in the free time (a fractional knapsack, cheapest members first) bound that class's count,
 * the least time that count needs is taken off before priority 2, and so on. Any schedule below the node places
 * units inside that free time, so its per-priority counts, read left to right, never beat these; and at a count
 * reached, its start sum is at least the smallest earliest starts of that many members.
 */
import type { Score } from './solver-decode.js';
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
 * Whether the units of a required set still to be placed (all after `from`, one free piece each) can fit: for
 * every deadline, the units due by it take no more than the free time between `from` and it, pieces too short
 * for any of them left out.
 */
export function fitsByDeadlines(m: Model, units: readonly { j: number }[], free: FreeList, from: number): boolean {
  if (units.length === 0) return true;
  const byDeadline = units.map(({ j }) => j).sort((a, b) => (m.dl[a] as number) - (m.dl[b] as number));
  let shortest = Number.POSITIVE_INFINITY;
  for (const j of byDeadline) shortest = Math.min(shortest, m.dur[j] as number);
  let i = free.firstEndingAfter(from);
  let capacity = 0;
  let need = 0;
  // Pieces wholly before the current deadline are added once; the one it cuts is counted up to it.
  for (const j of byDeadline) {
    const due = m.dl[j] as number;
    need += m.dur[j] as number;
    while (i < free.starts.length && (free.ends[i] as number) <= due) {
      const piece = (free.ends[i] as number) - Math.max(free.starts[i] as number, from);
      if (piece >= shortest) capacity += piece;
      i++;
    }
    let partial = 0;
    if (i < free.starts.length) {
      const piece = due - Math.max(free.starts[i] as number, from);
      if (piece >= shortest) partial = piece;
    }
    if (need > capacity + partial) return false;
  }
  return true;
}
