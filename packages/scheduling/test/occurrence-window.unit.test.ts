import { Temporal } from '@routinely/time';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { occurrenceWindow, parseDayWindow } from '../src/index.js';

const MINUTE = 60_000;

/** The window of `day` as UTC text, [start, end]. */
const windowOn = (day: string, zone: string, start: string, end: string) => {
  const w = occurrenceWindow(Temporal.PlainDate.from(day), parseDayWindow({ start, end }), zone);
  return [w.earliestStartAt.toISOString(), w.deadlineAt.toISOString()];
};

describe('a routine window in a daylight-saving gap (RFC 5545: a skipped local time moves forward by the gap)', () => {
  it('America/New_York, 8 March 2026 (02:00-03:00 EST does not exist)', () => {
    // The whole gap becomes the hour after it: 03:00-04:00 EDT.
    expect(windowOn('2026-03-08', 'America/New_York', '02:00', '03:00')).toEqual([
      '2026-03-08T07:00:00.000Z',
      '2026-03-08T08:00:00.000Z',
    ]);
    expect(windowOn('2026-03-08', 'America/New_York', '02:15', '02:45')).toEqual([
      '2026-03-08T07:15:00.000Z', // 03:15 EDT
      '2026-03-08T07:45:00.000Z',
    ]);
    // A window ending in the gap keeps its length too (02:30 reads as 03:30 EDT).
    expect(windowOn('2026-03-08', 'America/New_York', '01:30', '02:30')).toEqual([
      '2026-03-08T06:30:00.000Z', // 01:30 EST
      '2026-03-08T07:30:00.000Z',
    ]);
    // The day before and after: the same wall times, on their own offsets.
    expect(windowOn('2026-03-07', 'America/New_York', '02:00', '03:00')).toEqual([
      '2026-03-07T07:00:00.000Z',
      '2026-03-07T08:00:00.000Z',
    ]);
    expect(windowOn('2026-03-09', 'America/New_York', '02:00', '03:00')).toEqual([
      '2026-03-09T06:00:00.000Z',
      '2026-03-09T07:00:00.000Z',
    ]);
  });

  it('Europe/London, 29 March 2026 (01:00-02:00 GMT does not exist)', () => {
    expect(windowOn('2026-03-29', 'Europe/London', '01:00', '02:00')).toEqual([
      '2026-03-29T01:00:00.000Z', // 02:00 BST
      '2026-03-29T02:00:00.000Z',
    ]);
  });

  it("Australia/Lord_Howe's 30-minute gap, 4 October 2026 (02:00-02:30 does not exist)", () => {
    expect(windowOn('2026-10-04', 'Australia/Lord_Howe', '02:00', '02:30')).toEqual([
      '2026-10-03T15:30:00.000Z', // 02:30 +11:00
      '2026-10-03T16:00:00.000Z',
    ]);
    expect(windowOn('2026-10-04', 'Australia/Lord_Howe', '02:10', '02:20')).toEqual([
      '2026-10-03T15:40:00.000Z',
      '2026-10-03T15:50:00.000Z',
    ]);
  });

  it('a whole day swallowed at midnight (Santiago) ends at the next midnight, not an hour into the next day', () => {
    // 2026-09-06 00:00 -04 does not exist: the day runs 01:00 -03 to midnight, 23 hours.
    expect(windowOn('2026-09-06', 'America/Santiago', '00:00', '24:00')).toEqual([
      '2026-09-06T04:00:00.000Z',
      '2026-09-07T03:00:00.000Z',
    ]);
  });
});

// Zones with every kind of change: hour and half-hour shifts, midnight gaps (Santiago, Havana), a 30-minute DST
// (Lord Howe), Ramadan changes (Casablanca), odd offsets (Chatham, St John's), the southern hemisphere, none.
const ZONES = [
  'UTC',
  'Europe/London',
  'America/New_York',
  'America/Santiago',
  'America/Havana',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'Africa/Casablanca',
  'America/St_Johns',
  'Asia/Kolkata',
] as const;

interface Transition {
  /** Wall clock just before and just after the change. */
  before: Temporal.PlainDateTime;
  after: Temporal.PlainDateTime;
  shiftMs: number;
}

/** The zone's offset changes from a day before `date` to two days after. */
function transitionsAround(date: Temporal.PlainDate, zone: string): Transition[] {
  const out: Transition[] = [];
  const end = date.add({ days: 2 }).toZonedDateTime(zone).epochNanoseconds;
  let at = date.subtract({ days: 1 }).toZonedDateTime(zone).getTimeZoneTransition('next');
  while (at && at.epochNanoseconds < end) {
    const justBefore = at.subtract({ nanoseconds: 1 });
    const shiftMs = (at.offsetNanoseconds - justBefore.offsetNanoseconds) / 1e6;
    if (shiftMs !== 0) {
      out.push({
        before: at.toPlainDateTime().subtract({ milliseconds: shiftMs }),
        after: at.toPlainDateTime(),
        shiftMs,
      });
    }
    at = at.getTimeZoneTransition('next');
  }
  return out;
}

/** A local date on or beside one of the zone's changes (or any date, for the days without one). */
const dayAndZone = fc
  .tuple(
    fc.integer({ min: Date.UTC(2015, 0, 1), max: Date.UTC(2040, 0, 1) }),
    fc.constantFrom(...ZONES),
    fc.integer({ min: -1, max: 1 }),
    fc.boolean(),
  )
  .map(([ms, zone, dayShift, nearChange]) => {
    const here = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone);
    const change = nearChange ? here.getTimeZoneTransition('next') : null;
    return { date: (change ?? here).toPlainDate().add({ days: dayShift }), zone, near: change };
  });

const minutesOf = (wall: Temporal.PlainDateTime, date: Temporal.PlainDate) =>
  Math.round(wall.since(date.toPlainDateTime()).total('minute'));

/** Windows drawn anywhere in the day, or with an end a few minutes from the change's wall times. */
const cases = dayAndZone.chain(({ date, zone, near }) => {
  const anchors = near ? [near.toPlainDateTime(), near.subtract({ nanoseconds: 1 }).toPlainDateTime()] : [];
  const anchorMinutes = anchors.map((wall) => minutesOf(wall, date)).filter((m) => m >= 0 && m <= 1440);
  const minute = anchorMinutes.length
    ? fc.oneof(
        fc.integer({ min: 0, max: 1440 }),
        fc.tuple(fc.constantFrom(...anchorMinutes), fc.integer({ min: -45, max: 45 })).map(([m, d]) => m + d),
      )
    : fc.integer({ min: 0, max: 1440 });
  return fc
    .tuple(minute, minute)
    .map(([a, b]) => [Math.max(0, Math.min(a, b)), Math.min(1440, Math.max(a, b))])
    .filter(([s, e]) => (s as number) < (e as number))
    .map(([startMin, endMin]) => ({ date, zone, startMin: startMin as number, endMin: endMin as number }));
});

describe('routine windows across every kind of change (property)', () => {
  it('every window has a positive length, equal to its local length unless it crosses a change', () => {
    fc.assert(
      fc.property(cases, ({ date, zone, startMin, endMin }) => {
        const w = occurrenceWindow(date, { startMin, endMin }, zone);
        const elapsed = w.deadlineAt.getTime() - w.earliestStartAt.getTime();
        const local = (endMin - startMin) * MINUTE;
        expect(elapsed).toBeGreaterThan(0);
        // Each end lies on its date (the end may be the next midnight).
        const dayStart = date.toZonedDateTime(zone).epochMilliseconds;
        const dayEnd = date.add({ days: 1 }).toZonedDateTime(zone).epochMilliseconds;
        expect(w.earliestStartAt.getTime()).toBeGreaterThanOrEqual(dayStart);
        expect(w.deadlineAt.getTime()).toBeLessThanOrEqual(dayEnd);
        const from = date.toPlainDateTime().add({ minutes: startMin });
        const to = date.toPlainDateTime().add({ minutes: endMin });
        const touched = transitionsAround(date, zone).filter((t) => {
          const [lo, hi] = t.shiftMs > 0 ? [t.before, t.after] : [t.after, t.before];
          return Temporal.PlainDateTime.compare(from, hi) <= 0 && Temporal.PlainDateTime.compare(lo, to) <= 0;
        });
        const insideGap = touched.every(
          (t) =>
            t.shiftMs > 0 &&
            Temporal.PlainDateTime.compare(t.before, from) <= 0 &&
            Temporal.PlainDateTime.compare(to, t.after) <= 0,
        );
        if (touched.length === 0 || insideGap) {
          // No change in reach, or a window wholly in a gap: it keeps its local length exactly.
          expect(elapsed).toBe(local);
        } else {
          // Across a change: longer or shorter by at most the changes it crosses.
          const bound = touched.reduce((sum, t) => sum + Math.abs(t.shiftMs), 0);
          expect(Math.abs(elapsed - local)).toBeLessThanOrEqual(bound);
        }
      }),
      { numRuns: 1_000 },
    );
  });
});
