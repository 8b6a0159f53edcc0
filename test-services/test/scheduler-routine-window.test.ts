import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTask, type RunHarness, startRunHarness } from './run-harness.js';
import { knowUser } from './scheduler-harness.js';

// A routine's placement run used the default 14-day window, so the occurrence at the end of the
// horizon (and the one the hourly fill adds each day) was outside it and stayed pending forever.

let h: RunHarness;
beforeAll(async () => {
  // The routine worker polls often: a clock moved past a series' due time is filled within a poll.
  h = await startRunHarness({}, {}, { ROUTINE_FILL_POLL_MS: '50' });
});
afterAll(() => h?.close());

type Occurrence = {
  id: string;
  occurrence_date: string;
  status: string;
  chosen_slot_start: string | null;
  earliest_start_at: string;
  deadline_at: string;
};

const WEEKDAYS = 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR';

async function occurrencesOf(user: TestUser, seriesId: string, from: string, to: string) {
  const res = await h.task.call(user, 'GET', `/service/tasks/${seriesId}/occurrences?from=${from}&to=${to}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().items as Occurrence[];
}

/** Waits until every occurrence in the range is scheduled inside its own window, and answers them. */
function allPlaced(user: TestUser, seriesId: string, from: string, to: string, count: number) {
  return vi.waitFor(
    async () => {
      const items = await occurrencesOf(user, seriesId, from, to);
      expect(items).toHaveLength(count);
      const open = items.filter((o) => o.status !== 'scheduled').map((o) => o.occurrence_date);
      expect(open).toEqual([]);
      for (const o of items) {
        expect(new Date(o.chosen_slot_start as string) >= new Date(o.earliest_start_at)).toBe(true);
        expect(new Date(o.chosen_slot_start as string) < new Date(o.deadline_at)).toBe(true);
      }
      return items;
    },
    { timeout: 30_000, interval: 100 },
  );
}

describe("a routine's placement run has the window its occurrences need", () => {
  it('places the last date of the horizon, and the date the hourly fill adds after local midnight', {
    timeout: 90_000,
  }, async () => {
    h.clock.set('2026-11-23T06:00:00Z'); // a Monday in UTC (the user's zone), before working hours
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const series = await createTask(h, user, {
      title: 'Plan the day',
      duration_min: 30,
      recurrence: { rule: WEEKDAYS, window: { start: '09:00', end: '10:00' }, horizon_days: 14 },
    });
    // 23 November through 7 December: 11 weekdays, the last one 14 days out (past a 14-day window's end).
    const first = await allPlaced(user, series.id, '2026-11-23', '2026-12-31', 11);
    expect(first.at(-1)?.occurrence_date).toBe('2026-12-07');

    // Past local midnight and the series' hourly due time: the worker fills 8 December, and it is placed.
    h.clock.set('2026-11-24T00:30:00Z');
    const next = await allPlaced(user, series.id, '2026-11-24', '2026-12-31', 11);
    expect(next.at(-1)?.occurrence_date).toBe('2026-12-08');
  });

  it('places every occurrence of a 60-day horizon', { timeout: 90_000 }, async () => {
    h.clock.set('2026-11-23T06:00:00Z');
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const series = await createTask(h, user, {
      title: 'Stretch',
      duration_min: 15,
      recurrence: { rule: WEEKDAYS, window: { start: '16:00', end: '17:00' }, horizon_days: 60 },
    });
    // 23 November 2026 through 22 January 2027: 45 weekdays.
    const items = await allPlaced(user, series.id, '2026-11-23', '2027-01-31', 45);
    expect(items.at(-1)?.occurrence_date).toBe('2027-01-22');
  });
});
