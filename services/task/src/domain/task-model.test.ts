import { describe, expect, it } from 'vitest';
import { isoTimestamp } from './task-model.js';

describe('isoTimestamp', () => {
  it('writes what toISOString writes', () => {
    const dates = [
      new Date(0),
      new Date(Date.UTC(1000, 0, 1)),
      new Date(Date.UTC(999, 11, 31, 23, 59, 59, 999)),
      new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999)),
      new Date(Date.UTC(10000, 0, 1)),
      new Date(Date.UTC(-1, 5, 15)),
      new Date('2026-11-24 04:12:00.123456+00'),
      new Date('2026-03-29T01:00:00.005Z'),
      new Date('2026-10-25T00:59:59.050Z'),
    ];
    // Plus a spread of instants over a few centuries with every millisecond width.
    for (let i = 0; i < 2000; i++) dates.push(new Date(-5e12 + i * 7_919_191_919 + (i % 1000)));
    for (const date of dates) expect(isoTimestamp(date)).toBe(date.toISOString());
  });

  it('throws like toISOString on an invalid date', () => {
    expect(() => isoTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });
});
