import { Temporal } from 'temporal-polyfill';

/**
 * Local-calendar arithmetic of an IANA zone on Temporal: days and months whose length in UTC moves with
 * daylight saving time. Two readings of a wall time exist in this package, each for a reason:
 * - `instantOfWallClock` (here) reads a wall time as Temporal's `compatible` does: a repeated time is its first
 *   occurrence, a skipped time moves forward by the gap (02:30 in a 02:00-03:00 gap is 03:30). Provider times,
 *   calendar steps ("the same time tomorrow") and routine windows (RFC 5545's reading) use it, as every calendar
 *   application does.
 * - `wallTimeToInstant` (wall-time.ts) is the scheduler's first-reading rule (ADR 051): a skipped time is the
 *   instant of the change itself (03:00), so a working day never starts later than the clock says.
 */

const zonedOf = (at: Date, timeZone: string) =>
  Temporal.Instant.fromEpochMilliseconds(at.getTime()).toZonedDateTimeISO(timeZone);
const instantOf = (zoned: Temporal.ZonedDateTime) => new Date(zoned.epochMilliseconds);

/** The wall clock of an instant in a zone (milliseconds kept). */
export function wallClockOf(at: Date, timeZone: string): Temporal.PlainDateTime {
  return zonedOf(at, timeZone).toPlainDateTime();
}

/** The zone's UTC offset at an instant, as `+01:00` (`+00:00` for UTC). */
export function offsetAt(at: Date, timeZone: string): string {
  return zonedOf(at, timeZone).offset;
}

/** The instant a wall time names in a zone: a repeated time is its first occurrence, a skipped one moves forward by the gap. */
export function instantOfWallClock(wall: Temporal.PlainDateTime, timeZone: string): Date {
  return instantOf(wall.toZonedDateTime(timeZone, { disambiguation: 'compatible' }));
}

/** The same wall time `days` local days later (23 or 25 hours across a DST change). */
export function plusLocalDays(at: Date, days: number, timeZone: string): Date {
  return instantOf(zonedOf(at, timeZone).add({ days }));
}

/** The same wall time `months` calendar months later, the day clamped to the month's end (Jan 31 -> Feb 28). */
export function plusLocalMonths(at: Date, months: number, timeZone: string): Date {
  return instantOf(zonedOf(at, timeZone).add({ months }));
}

/** The first instant of the local day containing `at` (local midnight, or the end of a gap that swallows it). */
export function startOfLocalDay(at: Date, timeZone: string): Date {
  return instantOf(zonedOf(at, timeZone).startOfDay());
}

/** The first instant of a local date (`YYYY-MM-DD`): midnight, or the end of a gap that swallows it. */
export function startOfLocalDate(date: string, timeZone: string): Date {
  return instantOf(Temporal.PlainDate.from(date).toZonedDateTime(timeZone));
}

/** True when the instant is the first of its local date in the zone (an all-day boundary). */
export function isStartOfLocalDate(at: Date, timeZone: string): boolean {
  return startOfLocalDay(at, timeZone).getTime() === at.getTime();
}

/** `YYYY-MM-DD` of an instant in a zone. */
export function localDateStringOf(at: Date, timeZone: string): string {
  return zonedOf(at, timeZone).toPlainDate().toString();
}

/** `YYYY-MM` of an instant in a zone. */
export function localMonthStringOf(at: Date, timeZone: string): string {
  return zonedOf(at, timeZone).toPlainDate().toPlainYearMonth().toString();
}

/** A `YYYY-MM-DD` date `days` days later (earlier when negative). */
export function addDays(date: string, days: number): string {
  return Temporal.PlainDate.from(date).add({ days }).toString();
}

/** Whole days from `start` to `end` (both `YYYY-MM-DD`; negative when `end` is earlier). */
export function daysBetween(start: string, end: string): number {
  return Temporal.PlainDate.from(start).until(Temporal.PlainDate.from(end), { largestUnit: 'day' }).days;
}

/** Every day (`YYYY-MM-DD`) of a `YYYY-MM` month, in order. */
export function daysOfMonth(month: string): string[] {
  const yearMonth = Temporal.PlainYearMonth.from(month);
  return Array.from({ length: yearMonth.daysInMonth }, (_, i) => yearMonth.toPlainDate({ day: i + 1 }).toString());
}
