import type { ManualClock } from '@routinely/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTask, type Harness, outboxEvents, startHarness, userInTimezone } from './harness.js';

let h: Harness;
let clock: ManualClock;

beforeAll(async () => {
  h = await startHarness({ ROUTINE_FILL_POLL_MS: '3600000' });
  clock = h.clock;
});
afterAll(() => h?.close());

const userIn = (timezone: string) => userInTimezone(h, timezone);

const locs = (body: { errors?: { loc: (string | number)[] }[] }) => body.errors?.map((e) => e.loc) ?? [];

describe('a routine window in a daylight-saving gap', () => {
  it('is placed an hour on in New York on 8 March, not shrunk to nothing', async () => {
    clock.set('2026-03-06T12:00:00Z');
    const user = await userIn('America/New_York');
    const series = await createTask(h, user, {
      title: 'Night backup check',
      duration_min: 30,
      recurrence: { rule: 'FREQ=DAILY', window: { start: '02:00', end: '03:00' }, horizon_days: 3 },
    });
    const res = await call(h, user, 'GET', `/service/tasks/${series.id}/occurrences?from=2026-03-07&to=2026-03-09`);
    expect(res.statusCode, res.body).toBe(200);
    const windows = res
      .json()
      .items.map((o: Record<string, string>) => [o.occurrence_date, o.earliest_start_at, o.deadline_at]);
    expect(windows).toEqual([
      ['2026-03-07', '2026-03-07T07:00:00.000Z', '2026-03-07T08:00:00.000Z'],
      // 02:00 EST does not exist: 03:00-04:00 EDT, an hour long like every other day.
      ['2026-03-08', '2026-03-08T07:00:00.000Z', '2026-03-08T08:00:00.000Z'],
      ['2026-03-09', '2026-03-09T06:00:00.000Z', '2026-03-09T07:00:00.000Z'],
    ]);
  });
});

describe('dates outside years 1970-9999', () => {
  it('are 422 naming the field in the occurrences range, not a 500', async () => {
    clock.set('2026-10-28T12:00:00Z');
    const user = await userIn('UTC');
    const series = await createTask(h, user, { title: 'Walk', recurrence: { rule: 'FREQ=DAILY', horizon_days: 1 } });
    const read = (query: string) => call(h, user, 'GET', `/service/tasks/${series.id}/occurrences?${query}`);
    for (const [query, loc] of [
      ['from=0000-01-01&to=0000-12-31', ['query', 'from']],
      ['from=1969-12-31&to=1970-01-31', ['query', 'from']],
      ['from=2026-01-01&to=0000-12-31', ['query', 'to']],
    ] as const) {
      const res = await read(query);
      expect(res.statusCode, `${query}: ${res.body}`).toBe(422);
      expect(locs(res.json())).toContainEqual(loc);
    }
    // The edges themselves are dates like any other; a default `to` past 9999 stops at its last day.
    expect((await read('from=1970-01-01&to=1970-12-31')).json().items).toEqual([]);
    expect((await read('from=9999-12-01')).statusCode).toBe(200);
  });

  it('are 422 naming the field in a recurrence, by create and by PATCH', async () => {
    clock.set('2026-10-28T12:00:00Z');
    const user = await userIn('UTC');
    const plain = await createTask(h, user, { title: 'Stretch' });
    for (const [recurrence, loc] of [
      [{ rule: 'FREQ=DAILY', until: '0000-01-01' }, ['body', 'recurrence', 'until']],
      [{ rule: 'FREQ=DAILY', until: '1969-12-31' }, ['body', 'recurrence', 'until']],
      [{ rule: 'FREQ=DAILY', starts_on: '0000-01-01', until: '0000-01-02' }, ['body', 'recurrence', 'starts_on']],
      [{ rule: 'FREQ=DAILY;UNTIL=00000101' }, ['body', 'recurrence', 'rule']],
    ] as const) {
      for (const res of [
        await call(h, user, 'POST', '/service/tasks', { title: 'x', recurrence }),
        await call(h, user, 'PATCH', `/service/tasks/${plain.id}`, { recurrence }),
      ]) {
        expect(res.statusCode, `${JSON.stringify(recurrence)}: ${res.body}`).toBe(422);
        expect(locs(res.json())).toContainEqual(loc);
      }
    }
    // Nothing was written: the plain task is still plain.
    expect((await call(h, user, 'GET', `/service/tasks/${plain.id}`)).json().recurrence).toBeNull();
    const lastDay = await createTask(h, user, {
      title: 'Far future',
      recurrence: { rule: 'FREQ=DAILY', until: '9999-12-31' },
    });
    expect(lastDay.recurrence.until).toBe('9999-12-31');
  });
});

describe('a recurrence set on a scheduled task', () => {
  it('clears the slots of the series and its steps (unscheduled events cancel their reminders)', async () => {
    clock.set('2026-10-28T12:00:00Z');
    const user = await userIn('UTC');
    const root = await createTask(h, user, { title: 'Gym', duration_min: 60, reminder_channels: ['inapp'] });
    const step = await createTask(h, user, { title: 'Warm up', parent_task_id: root.id, duration_min: 10 });
    const slot = (start: string, end: string) => ({ chosen_slot_start: start, chosen_slot_end: end });
    for (const [id, at] of [
      [root.id, slot('2026-10-29T08:00:00Z', '2026-10-29T09:00:00Z')],
      [step.id, slot('2026-10-29T08:00:00Z', '2026-10-29T08:10:00Z')],
    ] as const) {
      const res = await call(h, user, 'PATCH', `/service/tasks/${id}`, at);
      expect(res.json().status, res.body).toBe('scheduled');
    }

    const feed = new URL((await call(h, user, 'POST', '/service/calendar/feed')).json().url).pathname;
    const feedBody = async () => (await h.call(null, 'GET', feed.replace('/api/v1', ''))).body;
    expect(await feedBody()).toContain(`UID:${root.id}@routinely`);

    const res = await call(h, user, 'PATCH', `/service/tasks/${root.id}`, {
      recurrence: { rule: 'FREQ=DAILY', horizon_days: 2 },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'pending', chosen_slot_start: null, chosen_slot_end: null });
    const stepNow = (await call(h, user, 'GET', `/service/tasks/${step.id}`)).json();
    expect(stepNow).toMatchObject({ status: 'pending', chosen_slot_start: null, chosen_slot_end: null });
    const unscheduled = (await outboxEvents(h)).filter((e) => e.type === 'task.task.unscheduled').map((e) => e.taskId);
    expect(unscheduled).toEqual(expect.arrayContaining([root.id, step.id]));
    // Its occurrences are the ones placed from now on.
    const items = await call(h, user, 'GET', `/service/tasks/${root.id}/occurrences?from=2026-10-28&to=2026-10-30`);
    expect(items.json().items).toHaveLength(3);
    // The calendar feed no longer shows it.
    expect(await feedBody()).not.toContain(`UID:${root.id}@routinely`);
  });

  it('refuses a slot given in the same PATCH that makes it recur (the series is never scheduled)', async () => {
    clock.set('2026-10-28T12:00:00Z');
    const user = await userIn('UTC');
    const task = await createTask(h, user, { title: 'Swim' });
    const res = await call(h, user, 'PATCH', `/service/tasks/${task.id}`, {
      recurrence: { rule: 'FREQ=DAILY' },
      chosen_slot_start: '2026-10-29T08:00:00Z',
      chosen_slot_end: '2026-10-29T09:00:00Z',
    });
    expect(res.statusCode, res.body).toBe(422);
    expect(locs(res.json())).toContainEqual(['body', 'chosen_slot_start']);
    expect((await call(h, user, 'GET', `/service/tasks/${task.id}`)).json()).toMatchObject({
      recurrence: null,
      chosen_slot_start: null,
    });
  });
});
