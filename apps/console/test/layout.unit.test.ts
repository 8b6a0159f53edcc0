import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import type { CalendarEvent } from '../src/api/queries.js';
import { layoutDays, MIN_HEIGHT_MIN } from '../src/calendar/layout.js';
import { daysOf, instantAt, mondayOf, rangeTitle, stepDate } from '../src/time/zone.js';

const NY = 'America/New_York';
const at = (date: string, time: string, zone = NY) =>
  Temporal.PlainDateTime.from(`${date}T${time}`).toZonedDateTime(zone).toInstant().toString();
let n = 0;
const event = (start: string, end: string, title = `e${++n}`): CalendarEvent => ({
  ...{ id: `id-${title}`, source: 'task', title, start, end, all_day: false, status: 'scheduled', busy: true },
  ...{ task_id: `t-${title}`, integration_id: null, external_id: null, editable: true },
});

describe('the week grid lays blocks out by wall-clock time in the settings timezone', () => {
  // The week of 2027-03-14, when New York springs forward (02:00 -> 03:00).
  const days = daysOf('week', Temporal.PlainDate.from('2027-03-10'));

  it('puts 09:00 at the 09:00 line on both sides of a daylight-saving change', () => {
    const perDay = layoutDays(
      [
        event(at('2027-03-13', '09:00'), at('2027-03-13', '09:30')),
        event(at('2027-03-14', '09:00'), at('2027-03-14', '10:30')),
      ],
      days,
      NY,
    );
    expect(perDay[5]?.map((s) => [s.top, s.bottom])).toEqual([[540, 573]]);
    expect(perDay[6]?.map((s) => [s.top, s.bottom])).toEqual([[540, 630]]);
  });

  it('draws an event across the gap by its wall-clock times, and one across midnight on both days', () => {
    const perDay = layoutDays(
      [
        event(at('2027-03-14', '00:30'), at('2027-03-14', '04:00')),
        event(at('2027-03-12', '23:00'), at('2027-03-13', '01:00')),
      ],
      days,
      NY,
    );
    expect(perDay[6]?.map((s) => [s.top, s.bottom])).toEqual([[30, 240]]);
    expect(perDay[4]?.map((s) => [s.top, s.bottom])).toEqual([[1380, 1440]]);
    expect(perDay[5]?.map((s) => [s.top, s.bottom])).toEqual([[0, 60]]);
  });

  it('uses the settings timezone, not the machine clock: the same instant lands on another day in Tokyo', () => {
    const instant = at('2027-03-12', '20:00');
    expect(layoutDays([event(instant, at('2027-03-12', '21:00'))], days, NY)[4]?.[0]?.top).toBe(1200);
    expect(layoutDays([event(instant, at('2027-03-12', '21:00'))], days, 'Asia/Tokyo')[5]?.[0]?.top).toBe(600);
  });

  it('lays overlapping blocks side by side and keeps short ones a usable target', () => {
    const perDay = layoutDays(
      [
        event(at('2027-03-08', '09:00'), at('2027-03-08', '10:00'), 'a'),
        event(at('2027-03-08', '09:30'), at('2027-03-08', '10:30'), 'b'),
        event(at('2027-03-08', '10:00'), at('2027-03-08', '10:15'), 'c'),
        event(at('2027-03-08', '11:00'), at('2027-03-08', '11:15'), 'd'),
      ],
      days,
      NY,
    );
    const byTitle = Object.fromEntries((perDay[0] ?? []).map((s) => [s.event.title, s]));
    expect([byTitle.a?.col, byTitle.b?.col, byTitle.c?.col]).toEqual([0, 1, 0]);
    expect([byTitle.a?.cols, byTitle.b?.cols, byTitle.c?.cols]).toEqual([2, 2, 2]);
    expect(byTitle.d).toMatchObject({ top: 660, bottom: 660 + MIN_HEIGHT_MIN, col: 0, cols: 1 });
  });
});

describe('the days and steps of each view', () => {
  const date = Temporal.PlainDate.from('2026-12-02');
  it('weeks start on Monday; a month covers whole weeks; the agenda is 30 days', () => {
    expect(mondayOf(date).toString()).toBe('2026-11-30');
    const month = daysOf('month', date);
    expect([month[0]?.toString(), month[month.length - 1]?.toString(), month.length]).toEqual([
      '2026-11-30',
      '2027-01-03',
      35,
    ]);
    expect(daysOf('agenda', date)).toHaveLength(30);
    expect(stepDate('week', date, -1).toString()).toBe('2026-11-25');
    expect(rangeTitle('week', date)).toBe('30 November – 6 December 2026');
  });

  it('reads a wall-clock time in a DST gap forward, as clocks do', () => {
    expect(instantAt(Temporal.PlainDate.from('2027-03-14'), 150, NY).toString()).toBe('2027-03-14T07:30:00Z');
    expect(instantAt(Temporal.PlainDate.from('2027-03-14'), 24 * 60 + 60, NY).toString()).toBe('2027-03-15T05:00:00Z');
  });
});
