/**
 * The last phase for runs the branch and bound could not finish (ADR 052): searches that hold the set of placed
 * units, or the higher-priority part of it, and re-place it exactly.
 *  - An exchange: an unplaced unit is added to the placed units of its priority or higher (with their
 *    predecessors), every lower-priority unit is taken off, the branch and bound places that set in full (every
 *    unit of it required, which cuts a branch as soon as one of them can no longer fit), and the lower-priority
 *    units are put back where they fit. A schedule that places the set has more tasks of that priority, so any
 *    one found beats the old one; the neighbourhood search then improves it. This is the several-unit exchange
 *    one window cannot make (a priority-3 task on, a priority-4 and a priority-5 task off, across days). When
 *    that set cannot be placed, up to three swaps are tried: one placed unit of a higher priority out and a shorter
 *    unplaced one of the same priority in, most time freed first (a priority-3 task of 80 minutes for one of 40, so
 *    that a priority-4 task fits).
 *  - The set search: with the placed units held (so the per-priority counts are held), the branch and bound
 *    re-places all of them for the least start sums, priority 1 first. Each unit is required, so a branch ends as
 *    soon as one of them no longer fits before its deadline, which makes a search over 13-20 units finish where
 *    the same search with every unit optional does not. When it finishes, the schedule is the optimum for that
 *    set; when the budget ends first, the best found is kept.
 */
import { compareScores, decode, ranksBy, SCORE_LENGTH, scoreOf } from './solver-decode.js';
import { type Model, possible } from './solver-model.js';
import { reoptimize } from './solver-neighbourhood.js';
import type { Budget, Candidate } from './solver-search.js';
import type { FreeList } from './solver-structures.js';

/** Work (unit evaluations) of one exchange's branch and bound, and of all exchanges of a run. */
const EXCHANGE_WORK = 1_000_000;
export const EXCHANGES_WORK = 2_000_000;
/** Swaps tried when an exchange with everything held fails, and the work of each. */
const SWAPS_PER_EXCHANGE = 3;
const SWAP_WORK = 300_000;
/** Work of the set search per unit of the run, and at most. */
const SET_WORK_PER_UNIT = 60_000;
const SET_WORK_MAX = 1_500_000;

/** A worse score than any schedule's: what a search with nothing to beat starts from. */
const NOTHING = new Float64Array(SCORE_LENGTH).fill(Number.MAX_VALUE);

/** The first exchange for more tasks found within `budget` (shared by a run's exchanges), or undefined. */
export function exchangeForMore(m: Model, base: FreeList, best: Candidate, budget: Budget): Candidate | undefined {
  const unplaced: number[] = [];
  for (let j = 0; j < m.n; j++) if (Number.isNaN(best.starts[j] as number) && possible(m, j)) unplaced.push(j);
  unplaced.sort((a, b) => (m.priority[a] as number) - (m.priority[b] as number));
  for (const u of unplaced) {
    if (budget.left <= 0) break;
    const p = m.priority[u] as number;
    const held = (j: number) => j === u || (!Number.isNaN(best.starts[j] as number) && (m.priority[j] as number) <= p);
    const found =
      exchange(m, base, best, held, budget, EXCHANGE_WORK) ??
      swaps(m, best, u).reduce<Candidate | undefined>(
        (done, [out, on]) =>
          done ?? exchange(m, base, best, (j) => j === on || (j !== out && held(j)), budget, SWAP_WORK),
        undefined,
      );
    if (found) return found;
  }
  return undefined;
}

/** The placed units re-placed exactly for the least start sums (counts held); the better schedule or `best`. */
export function reorderPlaced(m: Model, base: FreeList, best: Candidate): Candidate {
  const set: number[] = [];
  for (let j = 0; j < m.n; j++) if (!Number.isNaN(best.starts[j] as number)) set.push(j);
  const work = Math.min(SET_WORK_PER_UNIT * m.n, SET_WORK_MAX);
  const found = reoptimize(m, base, best, set, { left: work }, { work, required: () => true });
  return found ?? best;
}

/**
 * For an exchange that fails with every placed unit of its priority or higher held: pairs of a placed unit and an
 * unplaced one of the same higher priority, the placed one longer (so the swap frees time), most time freed first.
 */
function swaps(m: Model, best: Candidate, u: number): [number, number][] {
  const pairs: [number, number][] = [];
  for (let out = 0; out < m.n; out++) {
    if (Number.isNaN(best.starts[out] as number) || (m.priority[out] as number) >= (m.priority[u] as number)) continue;
    for (let on = 0; on < m.n; on++)
      if (
        on !== u &&
        Number.isNaN(best.starts[on] as number) &&
        possible(m, on) &&
        m.priority[on] === m.priority[out] &&
        (m.dur[on] as number) < (m.dur[out] as number)
      )
        pairs.push([out, on]);
  }
  const freed = ([out, on]: [number, number]) => (m.dur[out] as number) - (m.dur[on] as number);
  return pairs.sort((a, b) => freed(b) - freed(a)).slice(0, SWAPS_PER_EXCHANGE);
}

/**
 * The units `held` picks (with their predecessors) re-placed exactly in the whole free time, every one required;
 * the others put back where they fit. The schedule when it beats `best`.
 */
function exchange(
  m: Model,
  base: FreeList,
  best: Candidate,
  held: (j: number) => boolean,
  budget: Budget,
  work: number,
): Candidate | undefined {
  const inSet = new Uint8Array(m.n);
  for (let j = 0; j < m.n; j++) if (held(j)) inSet[j] = 1;
  // A unit of the set brings its predecessors (a unit is placed only with them).
  for (let k = m.topo.length - 1; k >= 0; k--) {
    const j = m.topo[k] as number;
    if (inSet[j]) for (const e of m.preds[j] ?? []) inSet[e.to] = 1;
  }
  if (inSet.some((on, j) => on === 1 && !possible(m, j))) return undefined;
  const set: number[] = [];
  for (let j = 0; j < m.n; j++) if (inSet[j]) set.push(j);
  const stripped = Float64Array.from(best.starts, (s, j) => (inSet[j] ? s : Number.NaN));
  const found = reoptimize(m, base, { starts: stripped, score: NOTHING }, set, budget, { work, required: () => true });
  if (!found) return undefined;
  // The set first at its starts, then the rest highest priority first, each where it still fits.
  const rank = ranksBy(m, (j) => {
    const s = found.starts[j] as number;
    return Number.isNaN(s) ? [1, m.priority[j] as number, m.es[j] as number] : [0, s, 0];
  });
  const starts = decode(m, rank, base);
  const score = scoreOf(m, starts);
  return compareScores(score, best.score) < 0 ? { starts, score } : undefined;
}
