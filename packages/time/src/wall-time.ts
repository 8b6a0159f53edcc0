import { Temporal } from 'temporal-polyfill';

/**
 * Wall-clock times of a user's timezone turned into instants (working hours, recurrences, parsed dates). Every conversion goes through Temporal and the
 * zone's rules; nothing here adds offsets by hand. The one rule for wall times a day does not have once
 * (docs/adr/051-scheduling-time.md): a wall time stands for the FIRST instant at which the local clock reads
 * that time or later. So a time skipped by a spring change (02:30 in Berlin on 2027-03-28) is the instant of
 * the change (03:00 CEST), and a time repeated by an autumn change is its earlier occurrence (CEST).
 */

export type Weekday = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';
/** Index i is Temporal's dayOfWeek i + 1 (ISO: Monday is 1). */
export const WEEKDAYS: readonly Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

export const MINUTES_PER_DAY = 1440;

/** A bad time input, naming the field (e.g. `working_hours.mon[0].end`); services answer it with 422. */
export class TimeInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'TimeInputError';
  }
}

const WALL_TIME = /^(?:([01]\d|2[0-3]):([0-5]\d)|24:00)$/;

/** `HH:MM` (00:00..23:59, or 24:00 for the end of a day) -> minutes after local midnight. */
export function parseWallTime(value: string, field = 'time'): number {
  const match = WALL_TIME.exec(value);
  if (!match) throw new TimeInputError(field, `expected HH:MM between 00:00 and 24:00, got ${JSON.stringify(value)}`);
  if (match[1] === undefined) return MINUTES_PER_DAY;
  return Number(match[1]) * 60 + Number(match[2]);
}

/** An IANA zone name Temporal knows (`UTC` included); fixed offsets such as `+01:00` are not zones of a person. */
export function isValidTimeZone(timezone: string): boolean {
  if (timezone.length === 0 || /^[+-]/.test(timezone)) return false;
  try {
    Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(timezone);
    return true;
  } catch {
    return false;
  }
}

let zonesByLowerName: Map<string, string> | undefined;

/**
 * The zone's IANA name as the user wrote it, in its proper case (`europe/berlin` -> `Europe/Berlin`), or
 * undefined for anything Intl does not know (offsets like `+01:00` too). Names are not replaced by ICU's
 * legacy canonical ones: `Asia/Kolkata` stays `Asia/Kolkata`.
 */
export function canonicalTimeZone(value: string): string | undefined {
  if (!/^[A-Za-z]/.test(value)) return undefined;
  zonesByLowerName ??= new Map(
    [...Intl.supportedValuesOf('timeZone'), 'UTC'].map((zone) => [zone.toLowerCase(), zone] as const),
  );
  const listed = zonesByLowerName.get(value.toLowerCase());
  if (listed) return listed;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return value;
  } catch {
    return undefined;
  }
}

export function assertTimeZone(timezone: string, field = 'timezone'): void {
  if (!isValidTimeZone(timezone)) throw new TimeInputError(field, `unknown IANA timezone ${JSON.stringify(timezone)}`);
}

/** The calendar date of an instant in a zone. */
export function localDateOf(instant: Date, timezone: string): Temporal.PlainDate {
  return Temporal.Instant.fromEpochMilliseconds(instant.getTime()).toZonedDateTimeISO(timezone).toPlainDate();
}

export function weekdayOf(date: Temporal.PlainDate): Weekday {
  return WEEKDAYS[date.dayOfWeek - 1] as Weekday;
}

/**
 * The instant a wall time of a local date stands for (the first-reading rule above). `minutes` is 0..1440;
 * 1440 is the start of the next day, itself the first instant of that day even when midnight is skipped.
 */
export function wallTimeToInstant(timezone: string, date: Temporal.PlainDate, minutes: number): Date {
  if (minutes >= MINUTES_PER_DAY) return wallTimeToInstant(timezone, date.add({ days: 1 }), 0);
  const wall = date.toPlainDateTime({ hour: Math.floor(minutes / 60), minute: minutes % 60 });
  // 'earlier' already is the first occurrence of a repeated time; it only misreads a skipped time.
  const zoned = wall.toZonedDateTime(timezone, { disambiguation: 'earlier' });
  if (Temporal.PlainDateTime.compare(zoned.toPlainDateTime(), wall) === 0) return new Date(zoned.epochMilliseconds);
  // Skipped: `zoned` is the same reading on the old offset, i.e. just before the change; the change is next.
  const change = zoned.getTimeZoneTransition('next');
  if (!change) throw new Error(`no transition after a skipped wall time in ${timezone}`);
  return new Date(change.epochMilliseconds);
}
