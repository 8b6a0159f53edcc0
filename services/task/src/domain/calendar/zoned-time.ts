/**
 * Wall-clock arithmetic in an IANA timezone with Intl only (no offset arithmetic across days): calendar views
 * are local days and months, whose length in UTC moves with daylight saving time.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** A local wall time (month 1..12); milliseconds are carried separately from Intl's whole seconds. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
}

export function wallTimeOf(at: Date, timeZone: string): WallTime {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(at)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 1970,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
    ms: ((at.getTime() % 1000) + 1000) % 1000,
  };
}

const wallAsUtc = (w: WallTime) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.ms);

/** Local wall time minus UTC at an instant, in milliseconds. */
function offsetMs(at: Date, timeZone: string): number {
  return wallAsUtc(wallTimeOf(at, timeZone)) - at.getTime();
}

/**
 * The instant a wall time names in a timezone. An ambiguous time (clocks turned back) is its first
 * occurrence; a time inside a gap (clocks turned forward) is read with the offset before the gap, which lands
 * after it, as Temporal's `disambiguation: 'compatible'` does.
 */
export function instantOf(wall: WallTime, timeZone: string): Date {
  const target = wallAsUtc(wall);
  const before = offsetMs(new Date(target - 86_400_000), timeZone);
  const after = offsetMs(new Date(target + 86_400_000), timeZone);
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
