/**
 * Schedules from orders (ADR 052): the serial decoder that puts units, in a given precedence among those whose
 * predecessors are settled, each at its earliest feasible start (gaps left earlier are filled by later units),
 * and the contract's objective as a comparable score.
 */
import { type Model, PRIORITIES } from './solver-model.js';
import { type FreeList, Heap } from './solver-structures.js';

/**
 * The objective as one vector compared left to right, smaller is better: minus the placed members of priority
 * 1..5, then the sum of the starts of priority 1..5 members (milliseconds from the model's origin), then the
 * tasks moved from a slot they already had.
 */
export type Score = Float64Array;
export const SCORE_LENGTH = 2 * PRIORITIES + 1;

export function compareScores(a: Score, b: Score): number {
  for (let k = 0; k < SCORE_LENGTH; k++) {
    const d = (a[k] as number) - (b[k] as number);
    if (d !== 0) return d;
  }
  return 0;
}

/** Adds unit `j` placed at `start` (NaN: not placed) to `score`. */
export function addToScore(m: Model, score: Score, j: number, start: number): void {
  const cur = m.current[j] as number[];
  if (m.countsOnly) {
    if (!Number.isNaN(start))
      for (let k = 0; k < PRIORITIES; k++) score[k] = (score[k] as number) - (m.count[j * PRIORITIES + k] as number);
    return;
  }
  if (Number.isNaN(start)) {
    score[2 * PRIORITIES] = (score[2 * PRIORITIES] as number) + cur.length / 2;
    return;
  }
  const rel = start - m.origin;
  for (let k = 0; k < PRIORITIES; k++) {
    const c = m.count[j * PRIORITIES + k] as number;
    if (c === 0) continue;
    score[k] = (score[k] as number) - c;
    score[PRIORITIES + k] = (score[PRIORITIES + k] as number) + c * rel + (m.offsets[j * PRIORITIES + k] as number);
  }
  for (let x = 0; x < cur.length; x += 2)
    if (start + (cur[x] as number) !== cur[x + 1]) score[2 * PRIORITIES] = (score[2 * PRIORITIES] as number) + 1;
}

export function scoreOf(m: Model, starts: Float64Array): Score {
  const score = new Float64Array(SCORE_LENGTH);
  for (let j = 0; j < m.n; j++) addToScore(m, score, j, starts[j] as number);
  return score;
}

/** Earliest start of unit `j` its placed predecessors allow, or NaN when one of them is not placed. */
function boundFrom(m: Model, j: number, starts: Float64Array): number {
  let at = m.rel[j] as number;
  for (const e of m.preds[j] ?? []) {
    const s = starts[e.to] as number;
    if (Number.isNaN(s)) return Number.NaN;
    at = Math.max(at, s + e.c);
  }
  return at;
}

/**
 * The serial decoder: among units whose predecessors are settled, the one with the smallest `rank` goes next, at
 * its earliest feasible start in `base` (cloned). Units on a cycle or after a blocked predecessor stay NaN.
 */
export function decode(m: Model, rank: Float64Array, base: FreeList): Float64Array {
  const free = base.clone();
  const starts = new Float64Array(m.n).fill(Number.NaN);
  const pending = new Int32Array(m.n);
  const byRank = (a: number, b: number) => (rank[a] as number) - (rank[b] as number) || a - b;
  const heap = new Heap<number>(byRank);
  for (let j = 0; j < m.n; j++) {
    pending[j] = (m.preds[j] as unknown[]).length;
    if (pending[j] === 0 && !m.blocked[j]) heap.push(j);
  }
  while (heap.size > 0) {
    const j = heap.pop() as number;
    const bound = boundFrom(m, j, starts);
    if (!Number.isNaN(bound)) {
      const d = m.dur[j] as number;
      const start = free.earliest(bound, d, m.dl[j] as number);
      if (start >= 0) {
        free.take(start, start + d);
        starts[j] = start;
      }
    }
    for (const e of m.succs[j] ?? []) {
      pending[e.to] = (pending[e.to] as number) - 1;
      if (pending[e.to] === 0 && !m.blocked[e.to]) heap.push(e.to);
    }
  }
  return starts;
}

/** Ranks from a sort of the units by `key` (ties by index): the order a seed rule gives. */
export function ranksBy(m: Model, key: (j: number) => number[]): Float64Array {
  const keys = Array.from({ length: m.n }, (_, j) => key(j));
  const order = Array.from({ length: m.n }, (_, j) => j).sort((a, b) => {
    const ka = keys[a] as number[];
    const kb = keys[b] as number[];
    for (let k = 0; k < ka.length; k++) {
      const d = (ka[k] as number) - (kb[k] as number);
      if (d !== 0 && !Number.isNaN(d)) return d;
    }
    return a - b;
  });
  const rank = new Float64Array(m.n);
  order.forEach((j, r) => {
    rank[j] = r;
  });
  return rank;
}
