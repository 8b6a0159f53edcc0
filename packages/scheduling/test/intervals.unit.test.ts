import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  clipIntervals,
  findContainingInterval,
  type Interval,
  intersectIntervals,
  isSortedDisjoint,
  mergeIntervals,
  overlapsAny,
  subtractIntervals,
  totalDurationMs,
  unionIntervals,
} from '../src/index.js';
import { seeded } from './property-seed.js';

// Oracle: a bitmap of 200 unit steps; interval algebra must agree with set algebra on it.
const STEPS = 200;
const at = (step: number) => new Date(Date.UTC(2027, 0, 1) + step * 60_000);
const stepOf = (d: Date) => (d.getTime() - Date.UTC(2027, 0, 1)) / 60_000;
const raw = fc
  .array(fc.tuple(fc.integer({ min: 0, max: STEPS }), fc.integer({ min: 0, max: STEPS })), { maxLength: 12 })
  .map((pairs) => pairs.map(([a, b]): Interval => ({ start: at(Math.min(a, b)), end: at(Math.max(a, b)) })));
const sortedList = raw.map(mergeIntervals);

function bitmap(list: readonly Interval[]): boolean[] {
  const bits = new Array<boolean>(STEPS).fill(false);
  for (const i of list) for (let s = stepOf(i.start); s < stepOf(i.end); s++) bits[s] = true;
  return bits;
}

describe('interval lists', () => {
  it('merge, union, intersect, subtract and clip agree with set algebra', () => {
    fc.assert(
      fc.property(raw, sortedList, sortedList, fc.tuple(fc.nat(STEPS), fc.nat(STEPS)), (any, a, b, [w1, w2]) => {
        const merged = mergeIntervals(any);
        expect(isSortedDisjoint(merged)).toBe(true);
        // Merged intervals never touch.
        for (let i = 1; i < merged.length; i++)
          expect((merged[i - 1] as Interval).end < (merged[i] as Interval).start).toBe(true);
        expect(bitmap(merged)).toEqual(bitmap(any));
        const [x, y] = [bitmap(a), bitmap(b)];
        const union = unionIntervals(a, b);
        expect(bitmap(union)).toEqual(x.map((v, i) => v || (y[i] as boolean)));
        const both = intersectIntervals(a, b);
        expect(isSortedDisjoint(both)).toBe(true);
        expect(bitmap(both)).toEqual(x.map((v, i) => v && (y[i] as boolean)));
        const rest = subtractIntervals(a, b);
        expect(isSortedDisjoint(rest)).toBe(true);
        expect(bitmap(rest)).toEqual(x.map((v, i) => v && !y[i]));
        expect(totalDurationMs(rest) + totalDurationMs(both)).toBe(totalDurationMs(a));
        const window = { start: at(Math.min(w1, w2)), end: at(Math.max(w1, w2)) };
        const clipped = clipIntervals(a, window);
        expect(bitmap(clipped)).toEqual(x.map((v, i) => v && i >= Math.min(w1, w2) && i < Math.max(w1, w2)));
      }),
      seeded(100),
    );
  });

  it('keeps boundaries of the list it subtracts from and finds containing intervals', () => {
    const a = [
      { start: at(0), end: at(10) },
      { start: at(10), end: at(20) },
    ];
    expect(subtractIntervals(a, [{ start: at(5), end: at(6) }]).map((i) => [stepOf(i.start), stepOf(i.end)])).toEqual([
      [0, 5],
      [6, 10],
      [10, 20],
    ]);
    expect(findContainingInterval(a, { start: at(2), end: at(10) })).toBe(0);
    expect(findContainingInterval(a, { start: at(10), end: at(12) })).toBe(1);
    // Across the boundary of two touching intervals: inside neither.
    expect(findContainingInterval(a, { start: at(8), end: at(12) })).toBe(-1);
    expect(findContainingInterval(a, { start: at(25), end: at(26) })).toBe(-1);
  });

  it('finds containment and overlap like a linear scan would', () => {
    fc.assert(
      fc.property(sortedList, fc.nat(STEPS), fc.integer({ min: 1, max: 40 }), (list, s, len) => {
        const slot = { start: at(s), end: at(s + len) };
        const index = findContainingInterval(list, slot);
        const linear = list.findIndex((i) => i.start <= slot.start && slot.end <= i.end);
        expect(index).toBe(linear);
        expect(overlapsAny(list, slot)).toBe(list.some((i) => i.start < slot.end && slot.start < i.end));
      }),
      seeded(100),
    );
  });
});
