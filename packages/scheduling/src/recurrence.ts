import {
  instantOfWallClock,
  isSupportedDate,
  MINUTES_PER_DAY,
  parseWallTime,
  SUPPORTED_DATES,
  Temporal,
  TimeInputError,
  wallClockOf,
} from '@routinely/time';
import { RRuleTemporal } from 'rrule-temporal';

/**
 * Routines: which local dates an RFC 5545 rule names, and the instants of an occurrence's window on each. The
 * rule is expanded over floating dates (a UTC calendar, which has no offset changes), never in the user's zone:
 * rrule libraries' own zone handling adds, drops or shifts occurrences around DST changes. Each date's window
 * is then turned into instants as RFC 5545 reads a local time (`occurrenceWindow`, ADR 028).
 */

const FREQUENCIES = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const;
type Frequency = (typeof FREQUENCIES)[number];

const WEEKDAY_CODE = /^([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/;
const UNTIL_VALUE = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z?)?$/;
/** Bounds a rule's own COUNT and INTERVAL so one rule cannot ask for unbounded work. */
const MAX_COUNT = 10_000;
const MAX_INTERVAL = 1_000;

/** A rule checked against the contract's subset; `value` is what was given, normalised to upper case. */
export interface RecurrenceRule {
  value: string;
  frequency: Frequency;
  /** The rule's own UNTIL as a local date (a date-time UNTIL counts by its UTC date). */
  until?: Temporal.PlainDate;
}

const fail = (message: string): never => {
  throw new TimeInputError('rule', message);
};

function integers(value: string, name: string, min: number, max: number, allowNegative: boolean): number[] {
  return value.split(',').map((item) => {
    const n = /^[+-]?\d+$/.test(item) ? Number(item) : Number.NaN;
    const magnitude = Math.abs(n);
    if (!Number.isInteger(n) || magnitude < min || magnitude > max || (n < 0 && !allowNegative)) {
      fail(`${name} must be ${allowNegative ? '±' : ''}${min}..${max}, got ${JSON.stringify(item)}`);
    }
    return n;
  });
}

/**
 * Checks an RRULE value (without the `RRULE:` prefix) against the contract: FREQ of DAILY, WEEKLY, MONTHLY or
 * YEARLY with INTERVAL, BYDAY (ordinals only for MONTHLY and YEARLY), BYMONTHDAY (not WEEKLY), BYMONTH,
 * BYSETPOS (beside another BY part), and COUNT or UNTIL. Anything else is refused naming the part, so no rule
 * can place more than one occurrence on a day. Throws `TimeInputError` with field `rule`.
 */
export function parseRecurrenceRule(input: string): RecurrenceRule {
  const value = input.trim().toUpperCase();
  if (value.length === 0 || value.length > 500) fail('must be an RRULE value of 1..500 characters');
  if (value.startsWith('RRULE:')) fail('give the value without the RRULE: prefix');
  const parts = new Map<string, string>();
  for (const part of value.split(';')) {
    const match = /^([A-Z]+)=([^=;]+)$/.exec(part);
    if (!match) return fail(`malformed part ${JSON.stringify(part)} (expected NAME=VALUE)`);
    const [, name = '', partValue = ''] = match;
    if (parts.has(name)) fail(`${name} is given twice`);
    parts.set(name, partValue);
  }
  const allowed = new Set(['FREQ', 'INTERVAL', 'BYDAY', 'BYMONTHDAY', 'BYMONTH', 'BYSETPOS', 'COUNT', 'UNTIL']);
  for (const name of parts.keys()) {
    if (!allowed.has(name)) fail(`${name} is not supported (at most one occurrence a day; see the contract)`);
  }
  const frequency = parts.get('FREQ');
  if (!frequency) return fail('FREQ is required');
  if (!(FREQUENCIES as readonly string[]).includes(frequency)) {
    fail(`FREQ must be one of ${FREQUENCIES.join(', ')} (at most one occurrence a day)`);
  }
  const freq = frequency as Frequency;
  const interval = parts.get('INTERVAL');
  if (interval !== undefined) integers(interval, 'INTERVAL', 1, MAX_INTERVAL, false);
  const byDay = parts.get('BYDAY');
  if (byDay !== undefined) {
    for (const code of byDay.split(',')) {
      const match = WEEKDAY_CODE.exec(code);
      if (!match) fail(`BYDAY entry ${JSON.stringify(code)} is not a weekday code such as MO, 1MO or -1FR`);
      const ordinal = match?.[1];
      if (ordinal !== undefined) {
        if (freq !== 'MONTHLY' && freq !== 'YEARLY') fail('BYDAY ordinals (1MO, -1FR) need FREQ=MONTHLY or YEARLY');
        integers(ordinal, 'a BYDAY ordinal', 1, freq === 'MONTHLY' ? 5 : 53, true);
      }
    }
  }
  const byMonthDay = parts.get('BYMONTHDAY');
  if (byMonthDay !== undefined) {
    if (freq === 'WEEKLY') fail('BYMONTHDAY cannot be used with FREQ=WEEKLY');
    integers(byMonthDay, 'BYMONTHDAY', 1, 31, true);
  }
  const byMonth = parts.get('BYMONTH');
  if (byMonth !== undefined) integers(byMonth, 'BYMONTH', 1, 12, false);
  const bySetPos = parts.get('BYSETPOS');
  if (bySetPos !== undefined) {
    if (byDay === undefined && byMonthDay === undefined && byMonth === undefined) {
      fail('BYSETPOS needs another BY part (BYDAY, BYMONTHDAY or BYMONTH)');
    }
    integers(bySetPos, 'BYSETPOS', 1, 366, true);
  }
  const count = parts.get('COUNT');
  if (count !== undefined) integers(count, 'COUNT', 1, MAX_COUNT, false);
  const untilValue = parts.get('UNTIL');
  if (count !== undefined && untilValue !== undefined) fail('COUNT and UNTIL cannot both be given');
  let until: Temporal.PlainDate | undefined;
  if (untilValue !== undefined) {
    const match = UNTIL_VALUE.exec(untilValue);
    if (!match) return fail('UNTIL must be a date (20271231) or a UTC date-time (20271231T235959Z)');
    try {
      until = Temporal.PlainDate.from(
        { year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) },
        {
          overflow: 'reject',
        },
      );
    } catch {
      fail(`UNTIL ${untilValue} is not a calendar date`);
    }
    if (until && !isSupportedDate(until)) fail(`UNTIL must be ${SUPPORTED_DATES}`);
  }
  return { value, frequency: freq, ...(until ? { until } : {}) };
}

const compact = (date: Temporal.PlainDate) => date.toString().replaceAll('-', '');
const utcMidnight = (date: Temporal.PlainDate) => new Date(`${date.toString()}T00:00:00Z`);

/**
 * The local dates the rule names from `startsOn` (its first date, counted by COUNT) in `[from, to]`, both
 * inclusive, ending at `until` and at the rule's own UNTIL, whichever comes first. Sorted, each date once.
 */
export function recurrenceDates(
  rule: RecurrenceRule,
  range: {
    startsOn: Temporal.PlainDate;
    until?: Temporal.PlainDate | undefined;
    from: Temporal.PlainDate;
    to: Temporal.PlainDate;
  },
): Temporal.PlainDate[] {
  const ends = [range.to, range.until, rule.until].filter((d): d is Temporal.PlainDate => d !== undefined);
  const last = ends.reduce((a, b) => (Temporal.PlainDate.compare(a, b) <= 0 ? a : b));
  const first = Temporal.PlainDate.compare(range.from, range.startsOn) >= 0 ? range.from : range.startsOn;
  if (Temporal.PlainDate.compare(first, last) > 0) return [];
  // The rule's UNTIL is applied above as a local date; RFC 5545 wants a date UNTIL beside a date DTSTART.
  const withoutUntil = rule.value
    .split(';')
    .filter((part) => !part.startsWith('UNTIL='))
    .join(';');
  const expansion = new RRuleTemporal({
    rruleString: `DTSTART;TZID=UTC:${compact(range.startsOn)}T000000\nRRULE:${withoutUntil}`,
  });
  return expansion
    .between(utcMidnight(first), utcMidnight(last), true)
    .map((at) => Temporal.PlainDate.from(at.toString().slice(0, 10)));
}

/** An occurrence's window as minutes of its local day; the whole day when none is given. */
export interface DayWindow {
  startMin: number;
  endMin: number;
}

/** Parses `{ start: "07:00", end: "09:00" }` (start before end; end may be 24:00), naming the bad field. */
export function parseDayWindow(window: { start: string; end: string } | null | undefined): DayWindow {
  if (!window) return { startMin: 0, endMin: MINUTES_PER_DAY };
  const startMin = parseWallTime(window.start, 'window.start');
  const endMin = parseWallTime(window.end, 'window.end');
  if (startMin >= endMin) throw new TimeInputError('window.end', 'must be after window.start');
  return { startMin, endMin };
}

/** A wall time of `date` (`minutes` 0..1440, 1440 the next midnight) read as RFC 5545 reads a local time. */
function readWallTime(date: Temporal.PlainDate, minutes: number, timezone: string) {
  const day = minutes >= MINUTES_PER_DAY ? date.add({ days: 1 }) : date;
  const minute = minutes % MINUTES_PER_DAY;
  const wall = day.toPlainDateTime({ hour: Math.floor(minute / 60), minute: minute % 60 });
  const at = instantOfWallClock(wall, timezone);
  return { at, skipped: !wallClockOf(at, timezone).equals(wall) };
}

/**
 * Where an occurrence of `date` belongs: `earliestStartAt` and `deadlineAt` of its window in the zone. Each end is
 * a local time read as RFC 5545 reads one (07:00-09:00 stays 07:00-09:00 local on both sides of a change; a
 * repeated time is its first occurrence; a skipped one moves forward by the gap). A window whose start a spring
 * change skips moves forward by the gap as a whole, keeping its length (but not past its day's end): 02:00-03:00
 * on a 02:00-03:00 gap is 03:00-04:00, never a window of no length that nothing can be placed in.
 */
export function occurrenceWindow(
  date: Temporal.PlainDate,
  window: DayWindow,
  timezone: string,
): { earliestStartAt: Date; deadlineAt: Date } {
  const start = readWallTime(date, window.startMin, timezone);
  if (!start.skipped) return { earliestStartAt: start.at, deadlineAt: readWallTime(date, window.endMin, timezone).at };
  const shifted = start.at.getTime() + (window.endMin - window.startMin) * 60_000;
  const dayEnd = readWallTime(date, MINUTES_PER_DAY, timezone).at.getTime();
  return { earliestStartAt: start.at, deadlineAt: new Date(Math.min(shifted, dayEnd)) };
}
