/**
 * A walk over orders for more tasks (ADR 052): from the schedule the searches ended with, random insertions of one
 * unit in the order, each kept when the decoded schedule places no fewer members of any priority (read left to
 * right) and start times ignored, so the walk crosses the plateaus where the start sums hold the other searches
 * back. When it reaches more tasks, that schedule goes back through the insertion climb and the neighbourhood
 * search. Deterministic: a fixed-seed generator.
 */
import { compareScores, decode, ranksBy, SCORE_LENGTH, type Score } from './solver-decode.js';
import { type Model, PRIORITIES } from './solver-model.js';
import { generator } from './solver-search.js';
import type { FreeList } from './solver-structures.js';

/** Insertions tried by the walk (each one decode). */
const WALK_STEPS = 6_000;

/** Minus the placed members per priority, the rest of the score left at 0: what the walk compares. */
function countsOf(m: Model, starts: Float64Array): Score {
  const score = new Float64Array(SCORE_LENGTH);
  for (let j = 0; j < m.n; j++) {
    if (Number.isNaN(starts[j] as number)) continue;
    for (let k = 0; k < PRIORITIES; k++) score[k] = (score[k] as number) - (m.count[j * PRIORITIES + k] as number);
  }
  return score;
}

/** A schedule placing more members (lexicographically by priority) than `starts`, or undefined. */
export function walkForCounts(m: Model, base: FreeList, starts: Float64Array): Float64Array | undefined {
  const rank = ranksBy(m, (j) => [Number.isNaN(starts[j] as number) ? 1 : 0, starts[j] as number]);
  let order = Array.from({ length: m.n }, (_, j) => j).sort((a, b) => (rank[a] as number) - (rank[b] as number));
  const start = countsOf(m, starts);
  let current = start;
  let found: { starts: Float64Array; score: Score } | undefined;
  const random = generator(12345);
  const next = new Float64Array(m.n);
  for (let step = 0; step < WALK_STEPS; step++) {
    const j = order[Math.floor(random() * m.n)] as number;
    const candidate = order.filter((x) => x !== j);
    candidate.splice(Math.floor(random() * m.n), 0, j);
    candidate.forEach((x, r) => {
      next[x] = r;
    });
    const decoded = decode(m, next, base);
    const score = countsOf(m, decoded);
    if (compareScores(score, current) > 0) continue;
    order = candidate;
    current = score;
    if (compareScores(score, found?.score ?? start) < 0) found = { starts: decoded, score };
  }
  return found?.starts;
}
