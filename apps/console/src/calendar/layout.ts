import type { Temporal } from 'temporal-polyfill';
import type { CalendarEvent } from '../api/queries.js';
import { type Wall, wallOf } from '../time/wall.js';
import { dayStart, MINUTES_PER_DAY } from '../time/zone.js';

/** What the grid draws of one event on one day: wall-clock minutes of that day, and its place among overlaps. */
export interface Segment {
  event: CalendarEvent;
  /** Wall-clock minutes since local midnight, 0..1440. */
  top: number;
  bottom: number;
  /** Side-by-side placement among the events it overlaps: column index and the number of columns. */
  col: number;
  cols: number;
  /** The event's own local start and end (for its name), which may lie on other days. */
  start: Wall;
  end: Wall;
}

/**
 * The shortest block drawn, in minutes of grid (33 min = 26 px at 48 px an hour): every block stays a target of
 * at least 24 by 24 px (WCAG 2.2, 2.5.8). Its top stays at its true start; a short block takes this much room
 * in the overlap layout too, so one starting soon after it goes beside it instead of under it.
 */
export const MIN_HEIGHT_MIN = 33;

/**
 * Splits timed events into per-day segments in the settings timezone, then lays overlapping ones side by side.
 * A segment's position is wall-clock time: on a daylight-saving day an event at 09:00 sits at the 09:00 line,
 * whatever the offset; an event across midnight is drawn on both days.
 */
export function layoutDays(
  events: readonly CalendarEvent[],
  days: readonly Temporal.PlainDate[],
  timeZone: string,
): Segment[][] {
  const starts = days.map((d) => dayStart(d, timeZone).epochMilliseconds);
  const last = days[days.length - 1];
  if (last) starts.push(dayStart(last.add({ days: 1 }), timeZone).epochMilliseconds);
  const perDay: Segment[][] = days.map(() => []);
  for (const event of events) {
    if (event.all_day) continue;
    const start = wallOf(event.start, timeZone);
    const end = wallOf(event.end, timeZone);
    const s = start.ms;
    const e = Math.max(end.ms, s);
    for (let i = 0; i < days.length; i += 1) {
      const from = starts[i] ?? 0;
      const to = starts[i + 1] ?? 0;
      if (e <= from && !(s === e && s === from)) continue;
      if (s >= to) continue;
      const top = s <= from ? 0 : start.hour * 60 + start.minute;
      let bottom = e >= to ? MINUTES_PER_DAY : end.hour * 60 + end.minute;
      if (bottom - top < MIN_HEIGHT_MIN) bottom = Math.min(MINUTES_PER_DAY, top + MIN_HEIGHT_MIN);
      perDay[i]?.push({ event, top, bottom, col: 0, cols: 1, start, end });
    }
  }
  for (const segments of perDay) placeOverlaps(segments);
  return perDay;
}

/** Greedy columns within each cluster of overlapping segments (the layout calendars commonly use). */
function placeOverlaps(segments: Segment[]): void {
  segments.sort((a, b) => a.top - b.top || b.bottom - a.bottom);
  let cluster: Segment[] = [];
  let columnsEnd: number[] = [];
  let clusterEnd = -1;
  const close = () => {
    for (const s of cluster) s.cols = columnsEnd.length;
    cluster = [];
    columnsEnd = [];
  };
  for (const segment of segments) {
    if (segment.top >= clusterEnd) close();
    let col = columnsEnd.findIndex((end) => end <= segment.top);
    if (col < 0) {
      col = columnsEnd.length;
      columnsEnd.push(segment.bottom);
    } else {
      columnsEnd[col] = segment.bottom;
    }
    segment.col = col;
    cluster.push(segment);
    clusterEnd = Math.max(clusterEnd, segment.bottom);
  }
  close();
}

/** All-day events touching each day. */
export function allDayByDay(
  events: readonly CalendarEvent[],
  days: readonly Temporal.PlainDate[],
  timeZone: string,
): CalendarEvent[][] {
  const perDay: CalendarEvent[][] = days.map(() => []);
  for (const event of events) {
    if (!event.all_day) continue;
    const s = Date.parse(event.start);
    const e = Date.parse(event.end);
    days.forEach((day, i) => {
      const from = dayStart(day, timeZone).epochMilliseconds;
      const to = dayStart(day.add({ days: 1 }), timeZone).epochMilliseconds;
      if (s < to && e > from) perDay[i]?.push(event);
    });
  }
  return perDay;
}
