import { Temporal, WEEKDAYS, type Weekday } from '@routinely/time';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  expandWorkingTime,
  findContainingInterval,
  type Interval,
  isSortedDisjoint,
  type NoGoWindow,
  type WorkingHours,
} from '../src/index.js';
import { seeded } from './property-seed.js';

// Oracle: Temporal read directly (instant -> local wall clock), never the module's own conversion.
const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'Asia/Kolkata'] as const;
const TWO_YEARS: Interval = { start: new Date('2027-01-01T00:00:00Z'), end: new Date('2029-01-01T00:00:00Z') };
const MINUTE = 60_000;

// Boundaries on the quarter hour, often inside the hours where these zones change their clocks.
const boundary = fc.oneof(
  fc.integer({ min: 0, max: 96 }).map((q) => q * 15),
  fc.constantFrom(45, 60, 75, 90, 120, 135, 150, 165, 180, 195, 210),
);
const dayHours = fc.uniqueArray(boundary, { maxLength: 6 }).map((points) => {
  const sorted = [...points].sort((a, b) => a - b);
  const out: { start: number; end: number }[] = [];
  for (let i = 0; i + 1 < sorted.length; i += 2) out.push({ start: sorted[i] as number, end: sorted[i + 1] as number });
  return out;
});
const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
type Minutes = { start: number; end: number };
const weekMinutes = fc.array(dayHours, { minLength: 7, maxLength: 7 });
const toWorkingHours = (week: Minutes[][]): WorkingHours =>
  Object.fromEntries(
    WEEKDAYS.map((d, i) => [d, (week[i] ?? []).map((x) => ({ start: hhmm(x.start), end: hhmm(x.end) }))]),
  );

const quarterOf = (interval: Interval) => (interval.end.getTime() - interval.start.getTime()) / (15 * MINUTE);
const instantIn = (interval: Interval) =>
  fc.integer({ min: 0, max: quarterOf(interval) - 1 }).map((q) => new Date(interval.start.getTime() + q * 15 * MINUTE));
const noGoWindow: fc.Arbitrary<NoGoWindow> = fc.oneof(
  fc.record({
    id: fc.uuid(),
    kind: fc.constant('weekly' as const),
    days: fc.subarray([...WEEKDAYS], { minLength: 1 }),
    start: boundary.filter((m) => m < 1440).map(hhmm),
    end: boundary.map(hhmm),
  }),
  fc.record({ id: fc.uuid(), at: instantIn(TWO_YEARS), minutes: fc.integer({ min: 15, max: 4320 }) }).map(
    ({ id, at, minutes }): NoGoWindow => ({
      id,
      kind: 'once',
      start_at: at.toISOString(),
      end_at: new Date(at.getTime() + minutes * MINUTE).toISOString(),
    }),
  ),
);
// A window anywhere in the two years, up to all of it.
const windowArb = fc
  .tuple(instantIn(TWO_YEARS), instantIn(TWO_YEARS))
  .filter(([a, b]) => a.getTime() !== b.getTime())
  .map(([a, b]): Interval => (a < b ? { start: a, end: b } : { start: b, end: a }));

const zoned = (t: Date, zone: string) => Temporal.Instant.fromEpochMilliseconds(t.getTime()).toZonedDateTimeISO(zone);
const wallMinute = (z: Temporal.ZonedDateTime) => z.hour * 60 + z.minute;
const weekdayAt = (z: Temporal.ZonedDateTime) => WEEKDAYS[z.dayOfWeek - 1] as Weekday;

/** The instant at which the clock went back when `t` lies in an hour repeated by that change, else undefined. */
function repeatedSince(t: Date, zone: string): Date | undefined {
  // Cheap pre-check (every shift of these zones is at most an hour): the clock went back within 3 hours.
  if (zoned(t, zone).offsetNanoseconds >= zoned(new Date(t.getTime() - 3 * 3_600_000), zone).offsetNanoseconds)
    return undefined;
  const change = zoned(new Date(t.getTime() + 1), zone).getTimeZoneTransition('previous');
  if (!change) return undefined;
  const before = zoned(new Date(change.epochMilliseconds - 1), zone).offsetNanoseconds;
  const shiftMs = (before - change.offsetNanoseconds) / 1e6;
  return shiftMs > 0 && t.getTime() < change.epochMilliseconds + shiftMs
    ? new Date(change.epochMilliseconds)
    : undefined;
}

function inWorkingHours(z: Temporal.ZonedDateTime, week: Minutes[][]): boolean {
  const m = wallMinute(z);
  return (week[z.dayOfWeek - 1] ?? []).some((x) => x.start <= m && m < x.end);
}

function inNoGo(t: Date, z: Temporal.ZonedDateTime, windows: readonly NoGoWindow[]): boolean {
  const m = wallMinute(z);
  const today = weekdayAt(z);
  const yesterday = WEEKDAYS[(z.dayOfWeek + 5) % 7] as Weekday;
  return windows.some((w) => {
    if (w.kind === 'once') return new Date(w.start_at) <= t && t < new Date(w.end_at);
    const [s, e] = [w.start, w.end].map((x) => Number(x.slice(0, 2)) * 60 + Number(x.slice(3))) as [number, number];
    if (s < e) return w.days.includes(today) && s <= m && m < e;
    if (e < s) return (w.days.includes(today) && m >= s) || (w.days.includes(yesterday) && m < e);
    return false;
  });
}

const covering = (out: Interval[], t: Date) =>
  findContainingInterval(out, { start: t, end: new Date(t.getTime() + 1) });

describe('expandWorkingTime properties over two years', () => {
  for (const zone of ZONES) {
    it(`is sorted, inside the window, sound and complete in ${zone}`, () => {
      fc.assert(
        fc.property(
          weekMinutes,
          fc.array(noGoWindow, { maxLength: 4 }),
          windowArb,
          fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 40, maxLength: 40 }),
          (week, noGo, window, probes) => {
            const out = expandWorkingTime({
              timezone: zone,
              workingHours: toWorkingHours(week),
              noGoWindows: noGo,
              window,
            });
            expect(isSortedDisjoint(out)).toBe(true);
            for (const interval of out) {
              expect(interval.start >= window.start && interval.end <= window.end).toBe(true);
              // Soundness: every instant's wall time is working time and outside every no-go window, except
              // in an hour repeated by an autumn change, which belongs to the interval running when it began.
              const length = interval.end.getTime() - interval.start.getTime();
              for (const offset of [0, length / 3, length / 2, length - 1]) {
                const t = new Date(interval.start.getTime() + Math.floor(offset));
                const z = zoned(t, zone);
                const since = repeatedSince(t, zone);
                if (since === undefined) {
                  expect(inWorkingHours(z, week), `${t.toISOString()} ${z.toString()}`).toBe(true);
                  expect(inNoGo(t, z, noGo), `${t.toISOString()} in a no-go window`).toBe(false);
                } else {
                  // The working-hours interval covering it started before the clock went back.
                  const lastBefore = zoned(new Date(since.getTime() - 1), zone);
                  expect(inWorkingHours(lastBefore, week), `${t.toISOString()} repeated hour`).toBe(true);
                }
              }
            }
            // Completeness: an instant whose wall time is working time outside no-go windows is covered.
            const span = window.end.getTime() - window.start.getTime();
            for (const p of probes) {
              const t = new Date(window.start.getTime() + Math.floor(p * (span - 1)));
              const z = zoned(t, zone);
              if (repeatedSince(t, zone) !== undefined) continue;
              const expected = inWorkingHours(z, week) && !inNoGo(t, z, noGo);
              expect(covering(out, t) >= 0, `${t.toISOString()} ${z.toString()}`).toBe(expected);
            }
          },
        ),
        seeded(20),
      );
    }, 180_000);

    it(`gives each day its configured minutes, differing by the shift on change days, in ${zone}`, () => {
      fc.assert(
        fc.property(weekMinutes, (week) => {
          const out = expandWorkingTime({ timezone: zone, workingHours: toWorkingHours(week), window: TWO_YEARS });
          const actual = new Map<string, number>();
          for (const interval of out) {
            const day = zoned(interval.start, zone).toPlainDate().toString();
            actual.set(day, (actual.get(day) ?? 0) + (interval.end.getTime() - interval.start.getTime()) / MINUTE);
          }
          let changeDays = 0;
          for (let d = Temporal.PlainDate.from('2027-01-01'); d.year < 2029; d = d.add({ days: 1 })) {
            const dayStart = d.toZonedDateTime({ timeZone: zone });
            const dayEnd = d.add({ days: 1 }).toZonedDateTime({ timeZone: zone });
            // Only days wholly inside the window have all their configured time in it.
            if (dayStart.epochMilliseconds < TWO_YEARS.start.getTime()) continue;
            if (dayEnd.epochMilliseconds > TWO_YEARS.end.getTime()) continue;
            const change = dayStart.getTimeZoneTransition('next');
            const changesToday = change !== null && Temporal.ZonedDateTime.compare(change, dayEnd) < 0;
            const shift = changesToday ? (change.offsetNanoseconds - dayStart.offsetNanoseconds) / 60e9 : 0;
            // Wall minute the clock shows right after the change (03:00 in Berlin's spring, 02:00 in autumn).
            const after = changesToday ? wallMinute(change) : 0;
            if (changesToday) changeDays++;
            let expected = 0;
            for (const { start, end } of week[d.dayOfWeek - 1] ?? []) {
              let minutes = end - start;
              if (shift > 0) minutes -= Math.max(0, Math.min(end, after) - Math.max(start, after - shift));
              if (shift < 0 && start < after - shift && after - shift <= end) minutes -= shift;
              expected += minutes;
            }
            expect(actual.get(d.toString()) ?? 0, `${zone} ${d.toString()}`).toBe(expected);
          }
          expect(changeDays).toBe(zone === 'Asia/Kolkata' ? 0 : 4);
        }),
        seeded(6),
      );
    }, 180_000);
  }
});
