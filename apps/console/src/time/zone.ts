import { Temporal } from 'temporal-polyfill';

/**
 * Time on screen is wall-clock time in the user's settings timezone (GET /settings/me), never the browser's:
 * every conversion here names the zone. Instants travel as ISO strings, the way the API writes them.
 */
export type View = 'week' | 'day' | 'month' | 'agenda';
export const VIEWS: readonly View[] = ['week', 'day', 'month', 'agenda'];

export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;
export const WEEKDAY_KEYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

export const MINUTES_PER_DAY = 1440;
/** The grid's step: moves and resizes snap to it. */
export const STEP_MIN = 15;

export function isView(value: string | undefined): value is View {
  return VIEWS.includes(value as View);
}

export function todayIn(timeZone: string): Temporal.PlainDate {
  return Temporal.Now.plainDateISO(timeZone);
}

/** A YYYY-MM-DD from the URL, or today when it is missing or not a date. */
export function parseDay(value: string | undefined, timeZone: string): Temporal.PlainDate {
  if (value && /^\d{4}-\d{2}-\d{2}$/.test(value)) {
    try {
      return Temporal.PlainDate.from(value);
    } catch {
      // falls through to today
    }
  }
  return todayIn(timeZone);
}

/** Weeks start on Monday (ISO 8601). */
export function mondayOf(date: Temporal.PlainDate): Temporal.PlainDate {
  return date.subtract({ days: date.dayOfWeek - 1 });
}

/** The days a view shows for a date: its week, the day, the weeks covering its month, or 30 days from it. */
export function daysOf(view: View, date: Temporal.PlainDate): Temporal.PlainDate[] {
  let first = date;
  let count = 1;
  if (view === 'week') {
    first = mondayOf(date);
    count = 7;
  } else if (view === 'month') {
    first = mondayOf(date.with({ day: 1 }));
    const last = date.with({ day: date.daysInMonth });
    count = first.until(last.add({ days: 7 - last.dayOfWeek })).days + 1;
  } else if (view === 'agenda') {
    count = 30;
  }
  return Array.from({ length: count }, (_, i) => first.add({ days: i }));
}

/** The date one step of a view before or after (a week, a day, a month, 30 days). */
export function stepDate(view: View, date: Temporal.PlainDate, direction: 1 | -1): Temporal.PlainDate {
  const amount = { week: { weeks: 1 }, day: { days: 1 }, month: { months: 1 }, agenda: { days: 30 } }[view];
  return direction === 1 ? date.add(amount) : date.subtract(amount);
}

const dayStarts = new Map<string, Temporal.ZonedDateTime>();

/**
 * The instant a local day starts (midnight, or the first instant after a gap). Remembered per day and zone: the
 * polyfill's conversion is slow, and every render of a week asks for the same eight days.
 */
export function dayStart(date: Temporal.PlainDate, timeZone: string): Temporal.ZonedDateTime {
  const key = `${date.toString()}|${timeZone}`;
  let start = dayStarts.get(key);
  if (!start) {
    start = date.toZonedDateTime({ timeZone });
    dayStarts.set(key, start);
  }
  return start;
}

export function zoned(iso: string, timeZone: string): Temporal.ZonedDateTime {
  return Temporal.Instant.from(iso).toZonedDateTimeISO(timeZone);
}

/** Minutes since local midnight on the wall clock (a DST day still reads 0..1440). */
export function wallMinutes(time: Temporal.ZonedDateTime): number {
  return time.hour * 60 + time.minute;
}

/** The instant of a wall-clock minute on a local date; a time in a DST gap moves forward, as clocks do. */
export function instantAt(date: Temporal.PlainDate, minutes: number, timeZone: string): Temporal.Instant {
  const dayOffset = Math.floor(minutes / MINUTES_PER_DAY);
  const inDay = minutes - dayOffset * MINUTES_PER_DAY;
  return date
    .add({ days: dayOffset })
    .toPlainDateTime({ hour: Math.floor(inDay / 60), minute: inDay % 60 })
    .toZonedDateTime(timeZone, { disambiguation: 'compatible' })
    .toInstant();
}

const pad = (n: number) => String(n).padStart(2, '0');

export function hhmm(time: { hour: number; minute: number }): string {
  return `${pad(time.hour)}:${pad(time.minute)}`;
}

export function minutesLabel(minutes: number): string {
  return `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

export function weekdayName(date: { dayOfWeek: number }): string {
  return WEEKDAYS[date.dayOfWeek - 1] ?? '';
}

function monthName(month: number): string {
  return MONTHS[month - 1] ?? '';
}

/** "Monday 30 November" */
export function longDay(date: Temporal.PlainDate): string {
  return `${weekdayName(date)} ${date.day} ${monthName(date.month)}`;
}

/** The title of a view's range: "30 November – 6 December 2026", "November 2026", ... */
export function rangeTitle(view: View, date: Temporal.PlainDate): string {
  if (view === 'month') return `${monthName(date.month)} ${date.year}`;
  if (view === 'day') return `${longDay(date)} ${date.year}`;
  const days = daysOf(view, date);
  const first = days[0] ?? date;
  const last = days[days.length - 1] ?? date;
  const left = first.month === last.month ? `${first.day}` : `${first.day} ${monthName(first.month)}`;
  return `${left} – ${last.day} ${monthName(last.month)} ${last.year}`;
}

/** A duration in words: 15 min, 1 h, 1 h 30 min. */
export function durationLabel(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  if (!h) return `${m} min`;
  return m ? `${h} h ${m} min` : `${h} h`;
}
