/**
 * The last phase for runs the branch and bound could not finish (ADR 052): searches that hold the set of placed
 * units, or the higher-priority part of it, and re-place it exactly.
 *  - An exchange: an unplaced unit is added to the placed units of its priority or higher (with their
 *    predecessors), every lower-priority unit is taken off, the branch and bound places that set in full (every
 *    unit of it required, which cuts a branch as soon as one of them can no longer fit), and the lower-priority
 *    units are put back where they fit. A schedule that places the set has more tasks of that priority, so any
 *    one found beats the old one; the neighbourhood search then improves it. This is the several-unit exchange
 *    one window cannot make (a priority-3 task on, a priority-4 and a priority-5 task off, across days).
 *  - The set search: with the placed units held (so the per-priority counts are held), the branch and bound
 *    re-places all of them for the least start sums, priority 1 first. Each unit is required, so a branch ends as
 *    soon as one of them no longer fits before its deadline, which makes a search over 13-20 units finish where
 *    the same search with every unit optional does not. When it finishes, the schedule is the optimum for that
 *    set; when the budget ends first, the best found is kept.
 */
import { compareScores, decode, ranksBy, SCORE_LENGTH, scoreOf } from './solver-decode.js';
import { type Model, possible } from './solver-model.js';
import { reoptimize } from './solver-neighbourhood.js';
import type { Candidate } from './solver-search.js';
import type { FreeList } from './solver-structures.js';

/** Work (unit evaluations) of one exchange's branch and bound, and of all exchanges of one pass. */
const EXCHANGE_WORK = 1_000_000;
const EXCHANGES_WORK = 2_000_000;
/** Work of the set search per unit of the run, and at most. */
const SET_WORK_PER_UNIT = 50_000;
const SET_WORK_MAX = 1_500_000;

/** A worse score than any schedule's: what a search with nothing to beat starts from. */
const NOTHING = new Float64Array(SCORE_LENGTH).fill(Number.MAX_VALUE);

/** The best exchange for more tasks, or undefined when none is found within the budget. */
export function exchangeForMore(m: Model, base: FreeList, best: Candidate): Candidate | undefined {
  const budget = { left: EXCHANGES_WORK };
  const unplaced: number[] = [];
  for (let j = 0; j < m.n; j++) if (Number.isNaN(best.starts[j] as number) && possible(m, j)) unplaced.push(j);
  unplaced.sort((a, b) => (m.priority[a] as number) - (m.priority[b] as number));
  for (const u of unplaced) {
    if (budget.left <= 0) break;
    const inSet = new Uint8Array(m.n);
    for (let j = 0; j < m.n; j++)
      if (
        j === u ||
        (!Number.isNaN(best.starts[j] as number) && (m.priority[j] as number) <= (m.priority[u] as number))
      )
        inSet[j] = 1;
    // A unit of the set brings its predecessors (a unit is placed only with them).
    for (let k = m.topo.length - 1; k >= 0; k--) {
      const j = m.topo[k] as number;
      if (inSet[j]) for (const e of m.preds[j] ?? []) inSet[e.to] = 1;
    }
    if (inSet.some((on, j) => on === 1 && !possible(m, j))) continue;
    const set: number[] = [];
    for (let j = 0; j < m.n; j++) if (inSet[j]) set.push(j);
    const stripped = Float64Array.from(best.starts, (s, j) => (inSet[j] ? s : Number.NaN));
    const found = reoptimize(m, base, { starts: stripped, score: NOTHING }, set, budget, {
      work: EXCHANGE_WORK,
      required: () => true,
    });
    if (!found) continue;
    // The set first at its starts, then the rest highest priority first, each where it still fits.
    const rank = ranksBy(m, (j) => {
      const s = found.starts[j] as number;
      return Number.isNaN(s) ? [1, m.priority[j] as number, m.es[j] as number] : [0, s, 0];
    });
    const starts = decode(m, rank, base);
    const score = scoreOf(m, starts);
    if (compareScores(score, best.score) < 0) return { starts, score };
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
