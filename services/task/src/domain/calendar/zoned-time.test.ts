import { wallTimeOf } from '@routinely/platform';
import { describe, expect, it } from 'vitest';
import { instantOf, plusLocalDays, plusLocalMonths, startOfLocalDay } from './zoned-time.js';

const wall = (year: number, month: number, day: number, hour = 0, minute = 0) => ({
  year,
  month,
  day,
  hour,
  minute,
  second: 0,
  ms: 0,
});

describe('wall-clock arithmetic in a timezone', () => {
  it('reads an ambiguous time (clocks turned back) as its first occurrence', () => {
    // 01:30 happens twice in New York on 2026-11-01: first in EDT (05:30Z), then in EST (06:30Z).
    expect(instantOf(wall(2026, 11, 1, 1, 30), 'America/New_York').toISOString()).toBe('2026-11-01T05:30:00.000Z');
  });

  it('moves a time inside a gap (clocks turned forward) past the gap', () => {
    // 02:30 does not exist in New York on 2027-03-14; read with the offset before the gap it is 03:30 EDT.
    expect(instantOf(wall(2027, 3, 14, 2, 30), 'America/New_York').toISOString()).toBe('2027-03-14T07:30:00.000Z');
  });

  it('starts a day whose midnight is skipped at the end of the gap', () => {
    // Santiago skips 00:00-01:00 on 2026-09-06: the day starts at 01:00 local (-03:00).
    expect(startOfLocalDay(new Date('2026-09-06T15:00:00Z'), 'America/Santiago').toISOString()).toBe(
      '2026-09-06T04:00:00.000Z',
    );
  });

  it('adds local days and calendar months keeping the wall time, clamping the day of month', () => {
    const jan31 = instantOf(wall(2028, 1, 31, 9, 15), 'Europe/Berlin');
    expect(wallTimeOf(plusLocalMonths(jan31, 1, 'Europe/Berlin'), 'Europe/Berlin')).toMatchObject(
      wall(2028, 2, 29, 9, 15),
    );
    expect(wallTimeOf(plusLocalMonths(jan31, 11, 'Europe/Berlin'), 'Europe/Berlin')).toMatchObject(
      wall(2028, 12, 31, 9, 15),
    );
    const beforeShift = instantOf(wall(2027, 3, 27, 12), 'Europe/Berlin');
    const after = plusLocalDays(beforeShift, 1, 'Europe/Berlin');
    expect(after.getTime() - beforeShift.getTime()).toBe(23 * 3_600_000);
  });
});
