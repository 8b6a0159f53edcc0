/**
 * Calendar-timezone arithmetic with Intl only: item windows and all-day items are defined by the local
 * dates of the calendar's IANA timezone, which move against UTC with daylight saving time.
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

interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function localParts(at: Date, timeZone: string): LocalParts {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(at)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 0,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

/** Local wall time minus UTC at an instant, in milliseconds (whole seconds). */
function offsetMs(at: Date, timeZone: string): number {
  const p = localParts(at, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(at.getTime() / 1000) * 1000;
}

/** The local calendar date (YYYY-MM-DD) of an instant in a timezone. */
export function localDateOf(at: Date, timeZone: string): string {
  const p = localParts(at, timeZone);
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
  let guess = wall - offsetMs(new Date(wall), timeZone);
  guess = wall - offsetMs(new Date(guess), timeZone);
  if (localDateOf(new Date(guess), timeZone) !== date) {
    // Midnight does not exist that day: the day begins at the shift, which is local midnight read with
    // the offset in force just before it.
    return new Date(wall - offsetMs(new Date(guess - 3 * 3_600_000), timeZone));
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
