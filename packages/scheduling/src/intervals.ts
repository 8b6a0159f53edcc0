/**
 * Half-open UTC intervals `[start, end)` and the list algebra the solver sweeps with.
 *
 * A "sorted list" here means: ordered by start, pairwise disjoint (`a.end <= b.start`), no empty interval.
 * Touching intervals may stay apart: working time keeps the boundary between two configured working-hours
 * intervals, because a placement must lie inside one of them (contract, hard rules). `mergeIntervals` joins
 * touching intervals and is what busy time should go through.
 */
export interface Interval {
  start: Date;
  end: Date;
}

const ms = (d: Date) => d.getTime();
const span = (start: number, end: number): Interval => ({ start: new Date(start), end: new Date(end) });

export function durationMs(interval: Interval): number {
  return ms(interval.end) - ms(interval.start);
}

export function totalDurationMs(list: readonly Interval[]): number {
  let total = 0;
  for (const interval of list) total += durationMs(interval);
  return total;
}

/** True when `list` is a sorted list in the sense of this module (ordered, disjoint, non-empty intervals). */
export function isSortedDisjoint(list: readonly Interval[]): boolean {
  for (let i = 0; i < list.length; i++) {
    const current = list[i] as Interval;
    if (ms(current.end) <= ms(current.start)) return false;
    if (i > 0 && ms((list[i - 1] as Interval).end) > ms(current.start)) return false;
  }
  return true;
}

/**
 * Any intervals in any order -> a sorted list where overlapping or touching intervals are joined and empty
 * ones dropped. O(n log n); O(n) when the input is already ordered by start.
 */
export function mergeIntervals(list: readonly Interval[]): Interval[] {
  const ordered = list.filter((i) => ms(i.end) > ms(i.start));
  if (!isOrderedByStart(ordered)) ordered.sort((a, b) => ms(a.start) - ms(b.start));
  const out: Interval[] = [];
  let current: { start: number; end: number } | undefined;
  for (const interval of ordered) {
    if (current && ms(interval.start) <= current.end) {
      current.end = Math.max(current.end, ms(interval.end));
      continue;
    }
    if (current) out.push(span(current.start, current.end));
    current = { start: ms(interval.start), end: ms(interval.end) };
  }
  if (current) out.push(span(current.start, current.end));
  return out;
}

/** Union of two sorted lists (touching intervals joined). O(n + m). */
export function unionIntervals(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const ordered: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const takeA = j >= b.length || (i < a.length && ms((a[i] as Interval).start) <= ms((b[j] as Interval).start));
    ordered.push(takeA ? (a[i++] as Interval) : (b[j++] as Interval));
  }
  return mergeIntervals(ordered);
}

/** Every piece of time inside both sorted lists; boundaries of either list are kept. O(n + m). */
export function intersectIntervals(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as Interval;
    const y = b[j] as Interval;
    const start = Math.max(ms(x.start), ms(y.start));
    const end = Math.min(ms(x.end), ms(y.end));
    if (start < end) out.push(span(start, end));
    if (ms(x.end) <= ms(y.end)) i++;
    else j++;
  }
  return out;
}

/** The time of sorted list `a` not covered by sorted list `b`; boundaries inside `a` are kept. O(n + m). */
export function subtractIntervals(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let j = 0;
  for (const x of a) {
    let cursor = ms(x.start);
    const end = ms(x.end);
    // Cut-outs ending before this interval cannot touch any later interval of `a` either.
    while (j < b.length && ms((b[j] as Interval).end) <= cursor) j++;
    let k = j;
    while (k < b.length && ms((b[k] as Interval).start) < end) {
      const cut = b[k] as Interval;
      if (ms(cut.start) > cursor) out.push(span(cursor, ms(cut.start)));
      cursor = Math.max(cursor, ms(cut.end));
      if (cursor >= end) break;
      k++;
    }
    if (cursor < end) out.push(span(cursor, end));
  }
  return out;
}

/** The parts of a sorted list inside `window`. O(n). */
export function clipIntervals(list: readonly Interval[], window: Interval): Interval[] {
  return intersectIntervals(list, ms(window.end) > ms(window.start) ? [window] : []);
}

/**
 * Index of the interval of a sorted list that contains all of `slot`, or -1. O(log n). This is the
 * "inside one working-hours interval" check for a slot someone else proposed (a model's pick, an override).
 */
export function findContainingInterval(list: readonly Interval[], slot: Interval): number {
  let lo = 0;
  let hi = list.length - 1;
  const start = ms(slot.start);
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const candidate = list[mid] as Interval;
    if (ms(candidate.end) <= start) lo = mid + 1;
    else if (ms(candidate.start) > start) hi = mid - 1;
    else return ms(slot.end) <= ms(candidate.end) && start < ms(slot.end) ? mid : -1;
  }
  return -1;
}

/** True when `slot` shares any instant with an interval of the sorted list. O(log n). */
export function overlapsAny(list: readonly Interval[], slot: Interval): boolean {
  let lo = 0;
  let hi = list.length;
  // First interval ending after the slot starts; only it can overlap first.
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ms((list[mid] as Interval).end) <= ms(slot.start)) lo = mid + 1;
    else hi = mid;
  }
  const next = list[lo];
  return next !== undefined && ms(next.start) < ms(slot.end) && ms(slot.start) < ms(slot.end);
}

function isOrderedByStart(list: readonly Interval[]): boolean {
  for (let i = 1; i < list.length; i++)
    if (ms((list[i - 1] as Interval).start) > ms((list[i] as Interval).start)) return false;
  return true;
}
