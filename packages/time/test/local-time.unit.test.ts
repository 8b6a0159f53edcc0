import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  canonicalTimeZone,
  daysBetween,
  daysOfMonth,
  instantOfWallClock,
  isStartOfLocalDate,
  isValidTimeZone,
  localDateStringOf,
  localMonthStringOf,
  offsetAt,
  plusLocalDays,
  plusLocalMonths,
  startOfLocalDate,
  startOfLocalDay,
  wallClockOf,
} from '../src/index.js';

const wall = (year: number, month: number, day: number, hour = 0, minute = 0) =>
  new Temporal.PlainDateTime(year, month, day, hour, minute);

describe('local dates of a zone', () => {
  it('finds the start of a local date, across DST switches', () => {
    expect(startOfLocalDate('2026-11-10', 'UTC').toISOString()).toBe('2026-11-10T00:00:00.000Z');
    expect(startOfLocalDate('2026-11-10', 'Europe/Berlin').toISOString()).toBe('2026-11-09T23:00:00.000Z');
    expect(startOfLocalDate('2026-07-10', 'Europe/Berlin').toISOString()).toBe('2026-07-09T22:00:00.000Z');
    expect(startOfLocalDate('2026-03-29', 'Europe/Berlin').toISOString()).toBe('2026-03-28T23:00:00.000Z');
    expect(startOfLocalDate('2026-03-30', 'Europe/Berlin').toISOString()).toBe('2026-03-29T22:00:00.000Z');
    expect(startOfLocalDate('2026-11-01', 'America/New_York').toISOString()).toBe('2026-11-01T04:00:00.000Z');
    expect(startOfLocalDate('2026-11-02', 'America/New_York').toISOString()).toBe('2026-11-02T05:00:00.000Z');
    expect(startOfLocalDate('2026-11-10', 'Asia/Kolkata').toISOString()).toBe('2026-11-09T18:30:00.000Z');
    expect(startOfLocalDate('2026-11-10', 'Pacific/Kiritimati').toISOString()).toBe('2026-11-09T10:00:00.000Z');
  });

  it('starts a day whose midnight falls into a DST gap at the end of the gap', () => {
    // Chile moves clocks from 00:00 to 01:00 on 6 September 2026: the day begins at 01:00 local (04:00Z).
    const start = startOfLocalDate('2026-09-06', 'America/Santiago');
    expect(start.toISOString()).toBe('2026-09-06T04:00:00.000Z');
    expect(localDateStringOf(start, 'America/Santiago')).toBe('2026-09-06');
    expect(localDateStringOf(new Date(start.getTime() - 1000), 'America/Santiago')).toBe('2026-09-05');
  });

  it('recognises date boundaries and timezones', () => {
    expect(isStartOfLocalDate(new Date('2026-11-09T23:00:00Z'), 'Europe/Berlin')).toBe(true);
    expect(isStartOfLocalDate(new Date('2026-11-10T00:00:00Z'), 'Europe/Berlin')).toBe(false);
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(isValidTimeZone('Europe/Berlin')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    // A fixed offset has no daylight-saving rules: never a person's or a calendar's zone.
    expect(isValidTimeZone('+01:00')).toBe(false);
  });

  it('names a zone in its proper case, keeping the name the user chose', () => {
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('utc')).toBe('UTC');
    expect(canonicalTimeZone('Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(canonicalTimeZone('Mars/Olympus')).toBeUndefined();
    expect(canonicalTimeZone('+01:00')).toBeUndefined();
  });

  it('counts days and lists a month', () => {
    expect(daysBetween('2026-12-30', '2027-01-02')).toBe(3);
    expect(daysBetween('2027-01-02', '2026-12-30')).toBe(-3);
    expect(daysOfMonth('2028-02')).toHaveLength(29);
    expect(daysOfMonth('2027-02').at(-1)).toBe('2027-02-28');
    expect(localMonthStringOf(new Date('2026-11-30T23:30:00Z'), 'Europe/Berlin')).toBe('2026-12');
  });
});

describe('wall clocks of a zone', () => {
  it('reads the wall clock and offset on both sides of a DST change', () => {
    const before = new Date('2027-03-27T08:00:00.250Z');
    expect(wallClockOf(before, 'Europe/Berlin').toString()).toBe('2027-03-27T09:00:00.25');
    expect(offsetAt(before, 'Europe/Berlin')).toBe('+01:00');
    expect(offsetAt(new Date('2027-03-29T08:00:00Z'), 'Europe/Berlin')).toBe('+02:00');
    expect(offsetAt(new Date('2027-03-29T08:00:00Z'), 'Asia/Kolkata')).toBe('+05:30');
    expect(offsetAt(new Date('2027-03-29T08:00:00Z'), 'UTC')).toBe('+00:00');
  });

  it('reads an ambiguous time (clocks turned back) as its first occurrence', () => {
    // 01:30 happens twice in New York on 2026-11-01: first in EDT (05:30Z), then in EST (06:30Z).
    expect(instantOfWallClock(wall(2026, 11, 1, 1, 30), 'America/New_York').toISOString()).toBe(
      '2026-11-01T05:30:00.000Z',
    );
  });

  it('moves a time inside a gap (clocks turned forward) past the gap', () => {
    // 02:30 does not exist in New York on 2027-03-14; read with the offset before the gap it is 03:30 EDT.
    expect(instantOfWallClock(wall(2027, 3, 14, 2, 30), 'America/New_York').toISOString()).toBe(
      '2027-03-14T07:30:00.000Z',
    );
  });

  it('starts a day whose midnight is skipped at the end of the gap', () => {
    expect(startOfLocalDay(new Date('2026-09-06T15:00:00Z'), 'America/Santiago').toISOString()).toBe(
      '2026-09-06T04:00:00.000Z',
    );
  });

  it('adds local days and calendar months keeping the wall time, clamping the day of month', () => {
    const jan31 = instantOfWallClock(wall(2028, 1, 31, 9, 15), 'Europe/Berlin');
    expect(wallClockOf(plusLocalMonths(jan31, 1, 'Europe/Berlin'), 'Europe/Berlin').toString()).toBe(
      '2028-02-29T09:15:00',
    );
    expect(wallClockOf(plusLocalMonths(jan31, 11, 'Europe/Berlin'), 'Europe/Berlin').toString()).toBe(
      '2028-12-31T09:15:00',
    );
    const beforeShift = instantOfWallClock(wall(2027, 3, 27, 12), 'Europe/Berlin');
    const after = plusLocalDays(beforeShift, 1, 'Europe/Berlin');
    expect(after.getTime() - beforeShift.getTime()).toBe(23 * 3_600_000);
  });
});
