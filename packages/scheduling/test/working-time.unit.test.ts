import { isValidTimeZone, Temporal, TimeInputError, wallTimeToInstant } from '@routinely/time';
import { describe, expect, it } from 'vitest';
import {
  expandNoGoWindows,
  expandWorkingHours,
  expandWorkingTime,
  type Interval,
  type WorkingHours,
} from '../src/index.js';

const everyDay = (start: string, end: string): WorkingHours =>
  Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ start, end }]]));

const window = (start: string, end: string): Interval => ({ start: new Date(start), end: new Date(end) });
const iso = (list: Interval[]) => list.map((i) => [i.start.toISOString(), i.end.toISOString()]);

describe('expandWorkingTime across the Berlin changes of 2027', () => {
  it('keeps 09:00-10:00 local on both sides of the spring change (2027-03-28)', () => {
    const out = expandWorkingTime({
      timezone: 'Europe/Berlin',
      workingHours: everyDay('09:00', '10:00'),
      window: window('2027-03-26T00:00:00Z', '2027-03-31T00:00:00Z'),
    });
    expect(iso(out)).toEqual([
      ['2027-03-26T08:00:00.000Z', '2027-03-26T09:00:00.000Z'],
      ['2027-03-27T08:00:00.000Z', '2027-03-27T09:00:00.000Z'],
      // The clocks went forward at 01:00Z on the 28th: 09:00 CEST is 07:00Z from that day on.
      ['2027-03-28T07:00:00.000Z', '2027-03-28T08:00:00.000Z'],
      ['2027-03-29T07:00:00.000Z', '2027-03-29T08:00:00.000Z'],
      ['2027-03-30T07:00:00.000Z', '2027-03-30T08:00:00.000Z'],
    ]);
  });

  it('keeps 09:00-10:00 local on both sides of the autumn change (2027-10-31)', () => {
    const out = expandWorkingTime({
      timezone: 'Europe/Berlin',
      workingHours: everyDay('09:00', '10:00'),
      window: window('2027-10-30T00:00:00Z', '2027-11-02T00:00:00Z'),
    });
    expect(iso(out)).toEqual([
      ['2027-10-30T07:00:00.000Z', '2027-10-30T08:00:00.000Z'],
      ['2027-10-31T08:00:00.000Z', '2027-10-31T09:00:00.000Z'],
      ['2027-11-01T08:00:00.000Z', '2027-11-01T09:00:00.000Z'],
    ]);
  });

  it('maps a skipped wall time to the instant of the change', () => {
    const date = Temporal.PlainDate.from('2027-03-28');
    expect(wallTimeToInstant('Europe/Berlin', date, 150).toISOString()).toBe('2027-03-28T01:00:00.000Z');
    const hours = (start: string, end: string) =>
      iso(
        expandWorkingHours({
          timezone: 'Europe/Berlin',
          workingHours: { sun: [{ start, end }] },
          window: window('2027-03-27T12:00:00Z', '2027-03-28T12:00:00Z'),
        }),
      );
    expect(hours('02:30', '04:00')).toEqual([['2027-03-28T01:00:00.000Z', '2027-03-28T02:00:00.000Z']]);
    expect(hours('00:00', '02:30')).toEqual([['2027-03-27T23:00:00.000Z', '2027-03-28T01:00:00.000Z']]);
    // Wholly inside the skipped hour: no time at all that day.
    expect(hours('02:15', '02:45')).toEqual([]);
  });

  it('maps a repeated wall time to its first occurrence', () => {
    const date = Temporal.PlainDate.from('2027-10-31');
    expect(wallTimeToInstant('Europe/Berlin', date, 150).toISOString()).toBe('2027-10-31T00:30:00.000Z');
    const hours = (start: string, end: string) =>
      iso(
        expandWorkingHours({
          timezone: 'Europe/Berlin',
          workingHours: { sun: [{ start, end }] },
          window: window('2027-10-30T12:00:00Z', '2027-10-31T12:00:00Z'),
        }),
      );
    // 02:30 CEST to 04:00 CET: the repeated hour is worked through.
    expect(hours('02:30', '04:00')).toEqual([['2027-10-31T00:30:00.000Z', '2027-10-31T03:00:00.000Z']]);
    expect(hours('00:00', '02:30')).toEqual([['2027-10-30T22:00:00.000Z', '2027-10-31T00:30:00.000Z']]);
  });

  it('handles the New York spring change and a zone without changes', () => {
    const ny = expandWorkingTime({
      timezone: 'America/New_York',
      workingHours: { sat: [{ start: '09:00', end: '17:00' }], sun: [{ start: '09:00', end: '17:00' }] },
      window: window('2027-03-13T00:00:00Z', '2027-03-15T00:00:00Z'),
    });
    expect(iso(ny)).toEqual([
      ['2027-03-13T14:00:00.000Z', '2027-03-13T22:00:00.000Z'],
      ['2027-03-14T13:00:00.000Z', '2027-03-14T21:00:00.000Z'],
    ]);
    const kolkata = expandWorkingTime({
      timezone: 'Asia/Kolkata',
      workingHours: { mon: [{ start: '09:00', end: '17:30' }] },
      window: window('2027-03-01T00:00:00Z', '2027-03-02T00:00:00Z'),
    });
    expect(iso(kolkata)).toEqual([['2027-03-01T03:30:00.000Z', '2027-03-01T12:00:00.000Z']]);
  });
});

describe('expandWorkingTime shapes', () => {
  const utcWeek = window('2027-03-01T00:00:00Z', '2027-03-08T00:00:00Z'); // Monday to Monday

  it('keeps touching configured intervals apart, across midnight too', () => {
    const out = expandWorkingTime({
      timezone: 'UTC',
      workingHours: {
        mon: [
          { start: '12:00', end: '17:00' },
          { start: '09:00', end: '12:00' },
          { start: '22:00', end: '24:00' },
        ],
        tue: [{ start: '00:00', end: '02:00' }],
      },
      window: utcWeek,
    });
    expect(iso(out)).toEqual([
      ['2027-03-01T09:00:00.000Z', '2027-03-01T12:00:00.000Z'],
      ['2027-03-01T12:00:00.000Z', '2027-03-01T17:00:00.000Z'],
      ['2027-03-01T22:00:00.000Z', '2027-03-02T00:00:00.000Z'],
      ['2027-03-02T00:00:00.000Z', '2027-03-02T02:00:00.000Z'],
    ]);
  });

  it('takes out weekly, midnight-crossing and once no-go windows and clips to the window', () => {
    const out = expandWorkingTime({
      timezone: 'UTC',
      workingHours: { mon: [{ start: '00:00', end: '24:00' }], tue: [{ start: '00:00', end: '24:00' }] },
      noGoWindows: [
        { id: 'a', kind: 'weekly', days: ['mon', 'tue'], start: '12:00', end: '13:00' },
        { id: 'b', kind: 'weekly', days: ['sun', 'mon'], start: '22:00', end: '06:00' },
        { id: 'c', kind: 'once', start_at: '2027-03-02T10:00:00+01:00', end_at: '2027-03-02T11:30:00+01:00' },
      ],
      window: window('2027-03-01T05:00:00Z', '2027-03-02T20:00:00Z'),
    });
    expect(iso(out)).toEqual([
      ['2027-03-01T06:00:00.000Z', '2027-03-01T12:00:00.000Z'],
      ['2027-03-01T13:00:00.000Z', '2027-03-01T22:00:00.000Z'],
      ['2027-03-02T06:00:00.000Z', '2027-03-02T09:00:00.000Z'],
      ['2027-03-02T10:30:00.000Z', '2027-03-02T12:00:00.000Z'],
      ['2027-03-02T13:00:00.000Z', '2027-03-02T20:00:00.000Z'],
    ]);
    const noGo = expandNoGoWindows({
      timezone: 'UTC',
      noGoWindows: [{ id: 'b', kind: 'weekly', days: ['sun'], start: '22:00', end: '06:00' }],
      window: utcWeek,
    });
    // Sunday 2027-02-28 22:00 reaches into the window; Sunday 2027-03-07 22:00 is cut at its end.
    expect(iso(noGo)).toEqual([
      ['2027-03-01T00:00:00.000Z', '2027-03-01T06:00:00.000Z'],
      ['2027-03-07T22:00:00.000Z', '2027-03-08T00:00:00.000Z'],
    ]);
  });

  it('answers nothing for an empty or reversed window and a week without hours', () => {
    const base = { timezone: 'UTC', workingHours: everyDay('09:00', '17:00') };
    expect(expandWorkingTime({ ...base, window: window('2027-03-02T00:00:00Z', '2027-03-01T00:00:00Z') })).toEqual([]);
    expect(expandWorkingTime({ timezone: 'UTC', workingHours: {}, window: utcWeek })).toEqual([]);
  });

  it('refuses bad input naming the field', () => {
    const expandWith = (over: Partial<Parameters<typeof expandWorkingTime>[0]>) => () =>
      expandWorkingTime({ timezone: 'UTC', workingHours: {}, window: utcWeek, ...over });
    const fieldOf = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        expect(error).toBeInstanceOf(TimeInputError);
        return (error as TimeInputError).field;
      }
      throw new Error('expected a TimeInputError');
    };
    expect(fieldOf(expandWith({ timezone: 'Mars/Olympus' }))).toBe('timezone');
    expect(fieldOf(expandWith({ timezone: '+01:00' }))).toBe('timezone');
    expect(fieldOf(expandWith({ workingHours: { mon: [{ start: '9:00', end: '17:00' }] } }))).toBe(
      'working_hours.mon[0].start',
    );
    expect(fieldOf(expandWith({ workingHours: { tue: [{ start: '17:00', end: '09:00' }] } }))).toBe(
      'working_hours.tue[0].end',
    );
    expect(fieldOf(expandWith({ workingHours: { wed: [{ start: '24:00', end: '24:00' }] } }))).toBe(
      'working_hours.wed[0].end',
    );
    expect(
      fieldOf(
        expandWith({
          workingHours: {
            thu: [
              { start: '09:00', end: '12:00' },
              { start: '11:00', end: '13:00' },
            ],
          },
        }),
      ),
    ).toBe('working_hours.thu');
    expect(
      fieldOf(
        expandWith({
          noGoWindows: [{ id: 'x', kind: 'once', start_at: '2027-03-02T10:00:00', end_at: '2027-03-02T11:00:00Z' }],
        }),
      ),
    ).toBe('no_go_windows[0].start_at');
    expect(
      fieldOf(
        expandWith({
          noGoWindows: [{ id: 'x', kind: 'once', start_at: '2027-03-02T10:00:00Z', end_at: '2027-03-02T10:00:00Z' }],
        }),
      ),
    ).toBe('no_go_windows[0].end_at');
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Australia/Sydney')).toBe(true);
    expect(isValidTimeZone('')).toBe(false);
  });
});
