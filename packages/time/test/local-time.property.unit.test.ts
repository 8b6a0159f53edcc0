import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  instantOfWallClock,
  isStartOfLocalDate,
  localDateStringOf,
  plusLocalDays,
  startOfLocalDate,
  startOfLocalDay,
  wallClockOf,
  wallTimeToInstant,
} from '../src/index.js';

// Zones with every kind of change: hour and half-hour shifts, midnight gaps (Santiago, Havana), a 30-minute DST
// (Lord Howe), odd offsets (Kathmandu, Chatham), none at all (Kolkata), and the southern hemisphere.
const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'America/Santiago',
  'America/Havana',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Asia/Kathmandu',
  'Asia/Kolkata',
  'Africa/Casablanca',
  'America/St_Johns',
] as const;
const HOUR = 3_600_000;
const zone = fc.constantFrom(...ZONES);
const instant = fc.integer({ min: Date.UTC(2015, 0, 1), max: Date.UTC(2040, 0, 1) }).map((ms) => new Date(ms));

/** An instant within three hours of one of the zone's clock changes, where the arithmetic can go wrong. */
const nearChange = fc.tuple(instant, zone, fc.integer({ min: -180, max: 180 })).map(([at, z, minutes]) => {
  const change = Temporal.Instant.fromEpochMilliseconds(at.getTime())
    .toZonedDateTimeISO(z)
    .getTimeZoneTransition('next');
  return { at: change ? new Date(change.epochMilliseconds + minutes * 60_000) : at, zone: z };
});
const anyInstant = fc.oneof(
  fc.tuple(instant, zone).map(([at, z]) => ({ at, zone: z })),
  nearChange,
);

const compareWall = (a: Temporal.PlainDateTime, b: Temporal.PlainDateTime) => Temporal.PlainDateTime.compare(a, b);

describe('local time across DST changes (properties)', () => {
  it('a local day starts at or before every instant of it, and the instant before it is the day before', () => {
    fc.assert(
      fc.property(anyInstant, ({ at, zone }) => {
        const start = startOfLocalDay(at, zone);
        const date = localDateStringOf(at, zone);
        expect(start.getTime()).toBeLessThanOrEqual(at.getTime());
        expect(localDateStringOf(start, zone)).toBe(date);
        expect(localDateStringOf(new Date(start.getTime() - 1), zone)).toBe(addDays(date, -1));
        expect(startOfLocalDate(date, zone).getTime()).toBe(start.getTime());
        expect(isStartOfLocalDate(start, zone)).toBe(true);
      }),
    );
  });

  it('a wall clock read back names the same wall time, at its first occurrence', () => {
    fc.assert(
      fc.property(anyInstant, ({ at, zone }) => {
        const wall = wallClockOf(at, zone);
        const back = instantOfWallClock(wall, zone);
        expect(back.getTime()).toBeLessThanOrEqual(at.getTime());
        expect(wallClockOf(back, zone).equals(wall)).toBe(true);
        // Only a repeated hour has an earlier occurrence, and it is at most that hour earlier.
        expect(at.getTime() - back.getTime()).toBeLessThanOrEqual(HOUR);
      }),
    );
  });

  it('n local days later is the date n days on, at the same wall time unless a gap moved it forward', () => {
    fc.assert(
      fc.property(anyInstant, fc.integer({ min: -400, max: 400 }), ({ at, zone }, days) => {
        const later = plusLocalDays(at, days, zone);
        const wall = wallClockOf(at, zone);
        const laterWall = wallClockOf(later, zone);
        expect(laterWall.toPlainDate().toString()).toBe(addDays(wall.toPlainDate().toString(), days));
        const shift = laterWall.toPlainTime().since(wall.toPlainTime()).total('millisecond');
        expect(shift).toBeGreaterThanOrEqual(0);
        expect(shift).toBeLessThanOrEqual(HOUR);
      }),
    );
  });

  it("the scheduler's first reading: the first instant whose wall clock reads the time or later", () => {
    fc.assert(
      fc.property(anyInstant, fc.integer({ min: 0, max: 1439 }), ({ at, zone }, minutes) => {
        const date = wallClockOf(at, zone).toPlainDate();
        const wall = date.toPlainDateTime({ hour: Math.floor(minutes / 60), minute: minutes % 60 });
        const reading = wallTimeToInstant(zone, date, minutes);
        expect(compareWall(wallClockOf(reading, zone), wall)).toBeGreaterThanOrEqual(0);
        expect(compareWall(wallClockOf(new Date(reading.getTime() - 1), zone), wall)).toBeLessThan(0);
      }),
    );
  });
});
