/**
 * Wall-clock arithmetic in an IANA timezone on the platform's Intl primitive (no offset arithmetic across days):
 * calendar views are local days and months, whose length in UTC moves with daylight saving time.
 */
import { type WallTime, wallTimeOf, zoneOffsetMs } from '@routinely/platform';

const wallAsUtc = (w: WallTime) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.ms);

/**
 * The instant a wall time names in a timezone. An ambiguous time (clocks turned back) is its first
 * occurrence; a time inside a gap (clocks turned forward) is read with the offset before the gap, which lands
 * after it, as Temporal's `disambiguation: 'compatible'` does.
 */
export function instantOf(wall: WallTime, timeZone: string): Date {
  const target = wallAsUtc(wall);
  const before = zoneOffsetMs(new Date(target - 86_400_000), timeZone);
  const after = zoneOffsetMs(new Date(target + 86_400_000), timeZone);
  // The earlier offset first: it yields the first occurrence of an ambiguous time.
  for (const offset of before === after ? [before] : [before, after]) {
    const candidate = new Date(target - offset);
    if (wallAsUtc(wallTimeOf(candidate, timeZone)) === target) return candidate;
  }
  return new Date(target - before);
}

/** Normalises a wall time whose fields overflow (day 32, month 13) through the proleptic calendar. */
function normalised(w: WallTime): WallTime {
  const d = new Date(Date.UTC(w.year, w.month - 1, w.day));
  return { ...w, year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** The same wall time `days` local days later (23 or 25 hours across a DST change). */
export function plusLocalDays(at: Date, days: number, timeZone: string): Date {
  const w = wallTimeOf(at, timeZone);
  return instantOf(normalised({ ...w, day: w.day + days }), timeZone);
}

/** The same wall time `months` calendar months later, the day clamped to the month's end (Jan 31 -> Feb 28). */
export function plusLocalMonths(at: Date, months: number, timeZone: string): Date {
  const w = wallTimeOf(at, timeZone);
  const index = w.year * 12 + (w.month - 1) + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  return instantOf({ ...w, year, month, day: Math.min(w.day, daysInMonth(year, month)) }, timeZone);
}

/** The first instant of the local day containing `at` (local midnight, or the end of a gap that swallows it). */
export function startOfLocalDay(at: Date, timeZone: string): Date {
  const w = wallTimeOf(at, timeZone);
  return instantOf({ ...w, hour: 0, minute: 0, second: 0, ms: 0 }, timeZone);
}
