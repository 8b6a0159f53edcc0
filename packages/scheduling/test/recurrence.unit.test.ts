import { Temporal, TimeInputError } from '@routinely/time';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { occurrenceWindow, parseDayWindow, parseRecurrenceRule, recurrenceDates } from '../src/index.js';

const date = (iso: string) => Temporal.PlainDate.from(iso);
const dates = (rule: string, from: string, to: string, startsOn = from, until?: string) =>
  recurrenceDates(parseRecurrenceRule(rule), {
    startsOn: date(startsOn),
    from: date(from),
    to: date(to),
    until: until ? date(until) : undefined,
  }).map(String);

describe('parseRecurrenceRule', () => {
  it.each([
    'FREQ=DAILY',
    'FREQ=WEEKLY;BYDAY=MO,TH',
    'FREQ=WEEKLY;INTERVAL=2',
    'FREQ=MONTHLY;BYDAY=-1FR',
    'FREQ=MONTHLY;BYMONTHDAY=1',
    'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1',
    'FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=3',
    'freq=daily;count=10',
    'FREQ=DAILY;UNTIL=20271231',
    'FREQ=DAILY;UNTIL=20271231T235959Z',
  ])('accepts %s', (rule) => {
    expect(parseRecurrenceRule(rule).value).toBe(rule.toUpperCase());
  });

  it.each([
    ['', /1..500/],
    ['RRULE:FREQ=DAILY', /prefix/],
    ['FREQ=HOURLY', /at most one occurrence a day/],
    ['FREQ=DAILY;BYHOUR=7,19', /BYHOUR is not supported/],
    ['FREQ=DAILY;BYMINUTE=5', /BYMINUTE is not supported/],
    ['FREQ=WEEKLY;WKST=SU', /WKST is not supported/],
    ['INTERVAL=2', /FREQ is required/],
    ['FREQ=DAILY;FREQ=WEEKLY', /given twice/],
    ['FREQ=WEEKLY;BYDAY=1MO', /ordinals/],
    ['FREQ=WEEKLY;BYMONTHDAY=3', /BYMONTHDAY cannot/],
    ['FREQ=MONTHLY;BYDAY=XX', /weekday code/],
    ['FREQ=MONTHLY;BYDAY=6MO', /ordinal/],
    ['FREQ=MONTHLY;BYMONTHDAY=32', /BYMONTHDAY/],
    ['FREQ=YEARLY;BYMONTH=13', /BYMONTH/],
    ['FREQ=MONTHLY;BYSETPOS=1', /needs another BY part/],
    ['FREQ=DAILY;COUNT=3;UNTIL=20271231', /COUNT and UNTIL/],
    ['FREQ=DAILY;COUNT=0', /COUNT/],
    ['FREQ=DAILY;INTERVAL=-1', /INTERVAL/],
    ['FREQ=DAILY;UNTIL=20270230', /not a calendar date/],
    ['FREQ=DAILY;UNTIL=tomorrow', /UNTIL must be/],
    ['FREQ=DAILY;;', /malformed/],
  ])('refuses %j naming the rule', (rule, message) => {
    const refusal = (() => {
      try {
        parseRecurrenceRule(rule);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(TimeInputError);
    expect((refusal as TimeInputError).field).toBe('rule');
    expect((refusal as TimeInputError).message).toMatch(message);
  });
});

describe('recurrenceDates', () => {
  it('names every last Friday of a month (BYDAY=-1FR)', () => {
    expect(dates('FREQ=MONTHLY;BYDAY=-1FR', '2026-11-01', '2027-05-31')).toEqual([
      '2026-11-27',
      '2026-12-25',
      '2027-01-29',
      '2027-02-26',
      '2027-03-26',
      '2027-04-30',
      '2027-05-28',
    ]);
  });

  it('keeps a weekly rule on its weekdays across both DST changes of the year (floating dates)', () => {
    const days = dates('FREQ=WEEKLY;BYDAY=SU', '2026-10-18', '2027-04-04');
    expect(days).toContain('2026-10-25'); // Berlin's autumn change
    expect(days).toContain('2026-11-01'); // New York's autumn change
    expect(days).toContain('2027-03-14'); // New York's spring change
    expect(days).toContain('2027-03-28'); // Berlin's spring change
    expect(days.every((d) => date(d).dayOfWeek === 7)).toBe(true);
    expect(days).toHaveLength(25);
  });

  it('counts COUNT from starts_on, not from the range asked for', () => {
    expect(dates('FREQ=DAILY;COUNT=3', '2026-11-02', '2026-12-31', '2026-11-01')).toEqual(['2026-11-02', '2026-11-03']);
  });

  it('ends at the earlier of the until field and the rule UNTIL, both inclusive', () => {
    expect(dates('FREQ=DAILY;UNTIL=20261205', '2026-12-01', '2026-12-31', '2026-12-01', '2026-12-03')).toEqual([
      '2026-12-01',
      '2026-12-02',
      '2026-12-03',
    ]);
    expect(dates('FREQ=DAILY;UNTIL=20261202T235959Z', '2026-12-01', '2026-12-31')).toEqual([
      '2026-12-01',
      '2026-12-02',
    ]);
  });

  it('gives nothing before starts_on, and skips months without the day (BYMONTHDAY=31)', () => {
    expect(dates('FREQ=DAILY', '2026-11-01', '2026-11-03', '2026-11-10')).toEqual([]);
    expect(dates('FREQ=MONTHLY;BYMONTHDAY=31', '2027-01-01', '2027-06-30')).toEqual([
      '2027-01-31',
      '2027-03-31',
      '2027-05-31',
    ]);
  });

  it('every weekday, every 2 weeks', () => {
    expect(dates('FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR', '2026-11-27', '2026-12-02')).toEqual([
      '2026-11-27',
      '2026-11-30',
      '2026-12-01',
      '2026-12-02',
    ]);
    expect(dates('FREQ=WEEKLY;INTERVAL=2;BYDAY=TH', '2026-11-26', '2026-12-31')).toEqual([
      '2026-11-26',
      '2026-12-10',
      '2026-12-24',
    ]);
  });

  it('is each date of a daily rule once, whatever the range (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 60 }), (offset, span) => {
        const from = date('2026-01-01').add({ days: offset });
        const got = recurrenceDates(parseRecurrenceRule('FREQ=DAILY'), {
          startsOn: date('2026-01-01'),
          from,
          to: from.add({ days: span }),
        });
        expect(got.map(String)).toEqual(Array.from({ length: span + 1 }, (_, i) => from.add({ days: i }).toString()));
      }),
      { numRuns: 50 },
    );
  });
});

describe('occurrenceWindow', () => {
  const window = parseDayWindow({ start: '07:00', end: '09:00' });
  const utc = (d: string, tz: string) => {
    const w = occurrenceWindow(date(d), window, tz);
    return [w.earliestStartAt.toISOString(), w.deadlineAt.toISOString()];
  };

  it('keeps 07:00-09:00 local on both sides of New York changes', () => {
    expect(utc('2027-03-13', 'America/New_York')).toEqual(['2027-03-13T12:00:00.000Z', '2027-03-13T14:00:00.000Z']);
    expect(utc('2027-03-14', 'America/New_York')).toEqual(['2027-03-14T11:00:00.000Z', '2027-03-14T13:00:00.000Z']);
    expect(utc('2026-10-31', 'America/New_York')).toEqual(['2026-10-31T11:00:00.000Z', '2026-10-31T13:00:00.000Z']);
    expect(utc('2026-11-01', 'America/New_York')).toEqual(['2026-11-01T12:00:00.000Z', '2026-11-01T14:00:00.000Z']);
  });

  it('keeps 07:00-09:00 local on both sides of Berlin changes', () => {
    expect(utc('2027-03-27', 'Europe/Berlin')).toEqual(['2027-03-27T06:00:00.000Z', '2027-03-27T08:00:00.000Z']);
    expect(utc('2027-03-28', 'Europe/Berlin')).toEqual(['2027-03-28T05:00:00.000Z', '2027-03-28T07:00:00.000Z']);
    expect(utc('2026-10-25', 'Europe/Berlin')).toEqual(['2026-10-25T06:00:00.000Z', '2026-10-25T08:00:00.000Z']);
  });

  it('a whole-day window is the local day, 23 or 25 hours long on a change', () => {
    const whole = parseDayWindow(undefined);
    const spring = occurrenceWindow(date('2027-03-28'), whole, 'Europe/Berlin');
    expect(spring.earliestStartAt.toISOString()).toBe('2027-03-27T23:00:00.000Z');
    expect(spring.deadlineAt.getTime() - spring.earliestStartAt.getTime()).toBe(23 * 3_600_000);
    const autumn = occurrenceWindow(date('2026-10-25'), whole, 'Europe/Berlin');
    expect(autumn.deadlineAt.getTime() - autumn.earliestStartAt.getTime()).toBe(25 * 3_600_000);
  });

  it('a window whose start a spring change skips moves forward by the gap, keeping its length', () => {
    const early = parseDayWindow({ start: '02:30', end: '04:00' });
    const w = occurrenceWindow(date('2027-03-28'), early, 'Europe/Berlin');
    expect(w.earliestStartAt.toISOString()).toBe('2027-03-28T01:30:00.000Z'); // 03:30 CEST
    expect(w.deadlineAt.toISOString()).toBe('2027-03-28T03:00:00.000Z'); // 05:00 CEST
  });

  it('refuses a window whose end is not after its start, naming the field', () => {
    expect(() => parseDayWindow({ start: '09:00', end: '09:00' })).toThrow(/window.end/);
    expect(() => parseDayWindow({ start: '9am', end: '10:00' })).toThrow(/window.start/);
  });
});
