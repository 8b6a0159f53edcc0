import {
  assertTimeZone,
  localDateOf,
  parseWallTime,
  Temporal,
  TimeInputError,
  WEEKDAYS,
  type Weekday,
  wallTimeToInstant,
  weekdayOf,
} from '@routinely/time';
import { clipIntervals, type Interval, mergeIntervals, subtractIntervals } from './intervals.js';

/** One working-hours interval of a day, wall-clock `HH:MM` in the user's zone; `end` may be `24:00`. */
export interface WallInterval {
  start: string;
  end: string;
}

/** The settings' `working_hours`: a missing day works no hours. */
export type WorkingHours = Partial<Record<Weekday, readonly WallInterval[]>>;

export interface WeeklyNoGoWindow {
  id: string;
  label?: string | null;
  kind: 'weekly';
  days: readonly Weekday[];
  /** `HH:MM`; an `end` before `start` runs past midnight into the next day. */
  start: string;
  end: string;
}

export interface OnceNoGoWindow {
  id: string;
  label?: string | null;
  kind: 'once';
  /** ISO-8601 with an offset (or a Date read back from storage). */
  start_at: string | Date;
  end_at: string | Date;
}

export type NoGoWindow = WeeklyNoGoWindow | OnceNoGoWindow;

export interface WorkingTimeInput {
  timezone: string;
  workingHours: WorkingHours;
  noGoWindows?: readonly NoGoWindow[];
  window: Interval;
}

/**
 * Working time of a user inside `window`: working hours minus no-go windows, as a sorted list of disjoint UTC
 * intervals (see intervals.ts). Two configured intervals that touch stay two intervals, so a slot inside one
 * output interval is inside one working-hours interval.
 */
export function expandWorkingTime(input: WorkingTimeInput): Interval[] {
  const hours = expandWorkingHours(input);
  const noGo = expandNoGoWindows({
    timezone: input.timezone,
    noGoWindows: input.noGoWindows ?? [],
    window: input.window,
  });
  return subtractIntervals(hours, noGo);
}

/** Working hours alone (no-go windows not taken out), clipped to the window. */
export function expandWorkingHours(input: Omit<WorkingTimeInput, 'noGoWindows'>): Interval[] {
  assertTimeZone(input.timezone);
  const perDay = new Map<Weekday, { start: number; end: number }[]>();
  for (const day of WEEKDAYS) perDay.set(day, parseDay(input.workingHours[day] ?? [], day));
  const out: Interval[] = [];
  for (const date of localDatesCovering(input.window, input.timezone)) {
    for (const { start, end } of perDay.get(weekdayOf(date)) ?? []) {
      const from = wallTimeToInstant(input.timezone, date, start);
      const to = wallTimeToInstant(input.timezone, date, end);
      // A configured interval lying wholly inside a skipped hour has no instant that day.
      if (to > from) out.push({ start: from, end: to });
    }
  }
  return clipIntervals(out, input.window);
}

/** No-go windows as one merged sorted list, clipped to the window. */
export function expandNoGoWindows(input: {
  timezone: string;
  noGoWindows: readonly NoGoWindow[];
  window: Interval;
}): Interval[] {
  assertTimeZone(input.timezone);
  const out: Interval[] = [];
  const dates = localDatesCovering(input.window, input.timezone);
  input.noGoWindows.forEach((window, i) => {
    const field = `no_go_windows[${i}]`;
    if (window.kind === 'once') {
      const start = parseInstant(window.start_at, `${field}.start_at`);
      const end = parseInstant(window.end_at, `${field}.end_at`);
      if (end <= start) throw new TimeInputError(`${field}.end_at`, 'must be after start_at');
      out.push({ start, end });
      return;
    }
    const start = parseWallTime(window.start, `${field}.start`);
    const end = parseWallTime(window.end, `${field}.end`);
    if (end === start) return;
    const days = new Set(window.days);
    for (const date of dates) {
      if (!days.has(weekdayOf(date))) continue;
      const endDate = end < start ? date.add({ days: 1 }) : date;
      const from = wallTimeToInstant(input.timezone, date, start);
      const to = wallTimeToInstant(input.timezone, endDate, end);
      if (to > from) out.push({ start: from, end: to });
    }
  });
  return clipIntervals(mergeIntervals(out), input.window);
}

/**
 * Local dates whose wall times can reach into the window: from the day before the window's first local date
 * (a weekly no-go window may run past midnight) to the window's last local date.
 */
function localDatesCovering(window: Interval, timezone: string): Temporal.PlainDate[] {
  if (window.end.getTime() <= window.start.getTime()) return [];
  const first = localDateOf(window.start, timezone).subtract({ days: 1 });
  const last = localDateOf(window.end, timezone);
  const dates: Temporal.PlainDate[] = [];
  for (let date = first; Temporal.PlainDate.compare(date, last) <= 0; date = date.add({ days: 1 })) dates.push(date);
  return dates;
}

function parseDay(intervals: readonly WallInterval[], day: Weekday): { start: number; end: number }[] {
  const parsed = intervals.map((interval, i) => {
    const field = `working_hours.${day}[${i}]`;
    const start = parseWallTime(interval.start, `${field}.start`);
    const end = parseWallTime(interval.end, `${field}.end`);
    if (start >= end) throw new TimeInputError(`${field}.end`, 'must be after start');
    return { start, end };
  });
  parsed.sort((a, b) => a.start - b.start);
  for (let i = 1; i < parsed.length; i++) {
    if ((parsed[i] as { start: number }).start < (parsed[i - 1] as { end: number }).end)
      throw new TimeInputError(`working_hours.${day}`, 'intervals overlap');
  }
  return parsed;
}

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

function parseInstant(value: string | Date, field: string): Date {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new TimeInputError(field, 'invalid date');
    return value;
  }
  if (!ISO_WITH_OFFSET.test(value)) throw new TimeInputError(field, 'expected an ISO-8601 datetime with an offset');
  try {
    return new Date(Temporal.Instant.from(value).epochMilliseconds);
  } catch {
    throw new TimeInputError(field, 'expected an ISO-8601 datetime with an offset');
  }
}
