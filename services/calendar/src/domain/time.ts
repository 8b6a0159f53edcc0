import { wallTimeOf, zoneOffsetMs } from '@routinely/platform';

/**
 * Calendar-timezone arithmetic on the platform's Intl primitive: item windows and all-day items are defined by the local
 * dates of the calendar's IANA timezone, which move against UTC with daylight saving time.
 */

/** The local calendar date (YYYY-MM-DD) of an instant in a timezone. */
export function localDateOf(at: Date, timeZone: string): string {
  const p = wallTimeOf(at, timeZone);
  return `${String(p.year).padStart(4, '0')}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** Adds whole days to a YYYY-MM-DD date. */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/**
 * The first instant of a local date in a timezone. Usually local midnight; where a DST gap swallows
 * midnight (e.g. America/Santiago), the day starts at the end of the gap.
 */
export function startOfLocalDate(date: string, timeZone: string): Date {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const wall = Date.UTC(y, m - 1, d);
  // Two passes converge on the offset in force at local midnight (the first guess may sit across a shift).
  let guess = wall - zoneOffsetMs(new Date(wall), timeZone);
  guess = wall - zoneOffsetMs(new Date(guess), timeZone);
  if (localDateOf(new Date(guess), timeZone) !== date) {
    // Midnight does not exist that day: the day begins at the shift, which is local midnight read with
    // the offset in force just before it.
    return new Date(wall - zoneOffsetMs(new Date(guess - 3 * 3_600_000), timeZone));
  }
  return new Date(guess);
}

/** True when the instant is the start of its local date in the timezone (an all-day boundary). */
export function isStartOfLocalDate(at: Date, timeZone: string): boolean {
  return startOfLocalDate(localDateOf(at, timeZone), timeZone).getTime() === at.getTime();
}

/** Whole days between two YYYY-MM-DD dates (end minus start). */
export function daysBetween(start: string, end: string): number {
  return Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / 86_400_000);
}
