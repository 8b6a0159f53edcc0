/**
 * Large-neighbourhood search (ADR 052): the schedule is improved a window at a time. A window is a run of units
 * consecutive in start time (or two such runs apart in time) with the unplaced units that could go in its span, or
 * an unplaced unit with the placed units it could take the place of; everything outside it keeps its slot, and the
 * branch and bound re-places the window's units exactly in the time the others leave. The objective
 * is a sum over units, so a better window is a better schedule. This finds the exchanges one insertion in an order
 * cannot (a priority-1 unit moved to another day, a second one into its place, a third one out of the way).
 */
import { compareScores, scoreOf } from './solver-decode.js';
import { type Edge, type Model, possible } from './solver-model.js';
import { type Budget, branchAndBound, type Candidate } from './solver-search.js';
import type { FreeList } from './solver-structures.js';

/** Sizes of the contiguous windows, smallest first. */
const WINDOW_SIZES = [6, 9, 12];
/** Unplaced units a window takes besides its placed ones (highest priority first). */
const UNPLACED_PER_WINDOW = 6;
/** Placed units a displacement window takes besides its unplaced one. */
const DISPLACE_SIZE = 14;
/** Units of each of the two windows of a paired window. */
const PAIRED_SIZE = 5;
/** Work of one window's branch and bound (unit evaluations). */
const WINDOW_WORK = 30_000;
/** The families, tried in this order: contiguous windows by size, displacement windows, paired windows. */
const DISPLACE = WINDOW_SIZES.length;
const FAMILIES = WINDOW_SIZES.length + 2;

export function neighbourhoodSearch(m: Model, base: FreeList, start: Candidate, budget: Budget): Candidate {
  let best = start;
  // A family is tried window by window until one improves (then again from the first family) or none does (then
  // the next family), while the budget lasts.
  for (let family = 0; family < FAMILIES && budget.left > 0; ) {
    let improved = false;
    for (const chosen of neighbourhoods(m, family, best.starts)) {
      if (budget.left <= 0) break;
      const next = reoptimize(m, base, best, chosen, budget);
      if (next) {
        best = next;
        improved = true;
        break;
      }
    }
    family = improved ? 0 : family + 1;
  }
  return best;
}

function neighbourhoods(m: Model, family: number, starts: Float64Array): number[][] {
  if (family === DISPLACE) return displacements(m, starts);
  const placed = placedByStart(m, starts);
  const windows: number[][] = [];
  if (family < WINDOW_SIZES.length) {
    const k = WINDOW_SIZES[family] as number;
    const step = Math.max(1, k >> 1);
    for (let w = 0; w === 0 || w + k - step < placed.length; w += step) windows.push(placed.slice(w, w + k));
  } else {
    const k = PAIRED_SIZE;
    const step = Math.max(1, (k + 1) >> 1);
    for (let a = 0; a + k < placed.length; a += step)
      for (let b = a + k; b < placed.length; b += step)
        windows.push([...placed.slice(a, a + k), ...placed.slice(b, b + k)]);
  }
  return windows.map((inside) => [...inside, ...unplacedFor(m, starts, inside)]);
}

/**
 * For each unplaced unit, highest priority first: it and the placed units of its priority or lower whose slots
 * overlap the time it could take (earliest first), the ones whose moving could make room for it.
 */
function displacements(m: Model, starts: Float64Array): number[][] {
  const unplaced: number[] = [];
  for (let j = 0; j < m.n; j++) if (Number.isNaN(starts[j] as number) && possible(m, j)) unplaced.push(j);
  unplaced.sort((a, b) => (m.priority[a] as number) - (m.priority[b] as number));
  const placed = placedByStart(m, starts);
  return unplaced.map((u) => [
    u,
    ...placed
      .filter((i) => {
        const s = starts[i] as number;
        return (
          (m.priority[i] as number) >= (m.priority[u] as number) &&
          (m.es[u] as number) < s + (m.dur[i] as number) &&
          (m.dl[u] as number) > s
        );
      })
      .slice(0, DISPLACE_SIZE),
  ]);
}

function placedByStart(m: Model, starts: Float64Array): number[] {
  const out: number[] = [];
  for (let j = 0; j < m.n; j++) if (!Number.isNaN(starts[j] as number)) out.push(j);
  return out.sort((a, b) => (starts[a] as number) - (starts[b] as number));
}

/** The unplaced units that could start within the window's span, highest priority first. */
function unplacedFor(m: Model, starts: Float64Array, inside: readonly number[]): number[] {
  const out: number[] = [];
  for (let j = 0; j < m.n; j++) {
    if (!Number.isNaN(starts[j] as number) || !possible(m, j)) continue;
    const fits = inside.some((i) => {
      const s = starts[i] as number;
      return (m.es[j] as number) < s + (m.dur[i] as number) && (m.dl[j] as number) > s;
    });
    if (fits) out.push(j);
  }
  out.sort(
    (a, b) => (m.priority[a] as number) - (m.priority[b] as number) || (m.dur[a] as number) - (m.dur[b] as number),
  );
  return out.slice(0, UNPLACED_PER_WINDOW);
}

/**
 * Re-places `chosen` exactly with every other unit kept where `best` has it; the better schedule, or undefined.
 * A unit of the window with a kept predecessor gets that bound as its release, one with a kept successor the
 * matching latest start (as its latest end); one whose kept predecessor is unplaced cannot be placed.
 */
export function reoptimize(
  m: Model,
  base: FreeList,
  best: Candidate,
  chosen: readonly number[],
  budget: Budget,
  options: { work?: number; required?: (j: number) => boolean } = {},
): Candidate | undefined {
  const k = chosen.length;
  const local = new Int32Array(m.n).fill(-1);
  chosen.forEach((j, i) => {
    local[j] = i;
  });
  const free = base.clone();
  for (let j = 0; j < m.n; j++) {
    const s = best.starts[j] as number;
    if (local[j] === -1 && !Number.isNaN(s)) free.take(s, s + (m.dur[j] as number));
  }
  const sub = subModel(m, best.starts, chosen, local);
  const incumbentStarts = Float64Array.from(chosen, (j) => best.starts[j] as number);
  const incumbent = { starts: incumbentStarts, score: scoreOf(sub, incumbentStarts) };
  const work = { left: Math.min(options.work ?? WINDOW_WORK, budget.left) };
  const required = options.required;
  const mask = required ? Uint8Array.from(chosen, (j) => (required(j) ? 1 : 0)) : undefined;
  const found = branchAndBound(sub, free, incumbent, work.left, mask);
  budget.left -= Math.max(k, work.left - found.workLeft);
  if (compareScores(found.score, incumbent.score) >= 0) return undefined;
  const starts = Float64Array.from(best.starts);
  chosen.forEach((j, i) => {
    starts[j] = found.starts[i] as number;
  });
  // A kept unit whose predecessor in the window is no longer placed drops out (and the score tells).
  for (const j of m.topo)
    for (const e of m.preds[j] as Edge[]) if (Number.isNaN(starts[e.to] as number)) starts[j] = Number.NaN;
  const score = scoreOf(m, starts);
  return compareScores(score, best.score) < 0 ? { starts, score } : undefined;
}

function subModel(m: Model, starts: Float64Array, chosen: readonly number[], local: Int32Array): Model {
  const k = chosen.length;
  const pick = (a: Float64Array) => Float64Array.from(chosen, (j) => a[j] as number);
  const rel = pick(m.rel);
  const dl = pick(m.dl);
  const dur = pick(m.dur);
  const blocked = Uint8Array.from(chosen, (j) => m.blocked[j] as number);
  const preds: Edge[][] = chosen.map(() => []);
  const succs: Edge[][] = chosen.map(() => []);
  chosen.forEach((j, i) => {
    for (const e of m.preds[j] as Edge[]) {
      const p = local[e.to] as number;
      if (p >= 0) {
        preds[i]?.push({ to: p, c: e.c });
        succs[p]?.push({ to: i, c: e.c });
        continue;
      }
      const s = starts[e.to] as number;
      if (Number.isNaN(s)) blocked[i] = 1;
      else rel[i] = Math.max(rel[i] as number, s + e.c);
    }
    for (const e of m.succs[j] as Edge[]) {
      const s = starts[e.to] as number;
      if ((local[e.to] as number) < 0 && !Number.isNaN(s))
        dl[i] = Math.min(dl[i] as number, s - e.c + (dur[i] as number));
    }
  });
  const topo = Int32Array.from(
    Array.from(m.topo)
      .filter((j) => local[j] !== -1)
      .map((j) => local[j] as number),
  );
  const es = Float64Array.from(rel);
  for (const i of topo)
    for (const e of preds[i] as Edge[]) es[i] = Math.max(es[i] as number, (es[e.to] as number) + e.c);
  const ls = Float64Array.from(chosen, (_, i) => (dl[i] as number) - (dur[i] as number));
  const PR = m.count.length / m.n;
  const rows = (a: Float64Array) => {
    const out = new Float64Array(k * PR);
    chosen.forEach((j, i) => {
      out.set(a.subarray(j * PR, (j + 1) * PR), i * PR);
    });
    return out;
  };
  const current = chosen.map((j) => m.current[j] as number[]);
  return {
    n: k,
    units: chosen.map((j) => m.units[j] as Model['units'][number]),
    index: new Map(),
    dur,
    rel,
    dl,
    preds,
    succs,
    blocked,
    topo,
    es,
    ls,
    count: rows(m.count),
    offsets: rows(m.offsets),
    current,
    currentTotal: current.reduce((s, c) => s + c.length / 2, 0),
    priority: Int8Array.from(chosen, (j) => m.priority[j] as number),
    size: Int32Array.from(chosen, (j) => m.size[j] as number),
    origin: m.origin,
  };
}
