import { isValidTimeZone } from '@routinely/platform';
import { describe, expect, it } from 'vitest';
import { addDays, isStartOfLocalDate, localDateOf, startOfLocalDate } from '../src/domain/time.js';

describe('calendar timezone arithmetic', () => {
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
    expect(localDateOf(start, 'America/Santiago')).toBe('2026-09-06');
    expect(localDateOf(new Date(start.getTime() - 1000), 'America/Santiago')).toBe('2026-09-05');
  });

  it('recognises date boundaries and timezones', () => {
    expect(isStartOfLocalDate(new Date('2026-11-09T23:00:00Z'), 'Europe/Berlin')).toBe(true);
    expect(isStartOfLocalDate(new Date('2026-11-10T00:00:00Z'), 'Europe/Berlin')).toBe(false);
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(isValidTimeZone('Europe/Berlin')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
  });
});
