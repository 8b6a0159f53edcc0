import { Sql } from '@routinely/db';
import { makeEvent, schedulerEvents } from '@routinely/events';
import type { ManualClock } from '@routinely/platform';
import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Routines } from '../src/domain/routines/routines.js';
import { TaskService } from '../src/domain/tasks.js';
import { publishHandled } from './calendar-helpers.js';
import { call, createTask, type Harness, placementRequestRow, startHarness } from './harness.js';

let h: Harness;
let clock: ManualClock;

beforeAll(async () => {
  h = await startHarness({ ROUTINE_FILL_POLL_MS: '3600000' });
  clock = h.clock;
});
afterAll(() => h?.close());

/** A user whose timezone the auth service reported (the task service keeps it from auth's events). */
async function userIn(timezone: string): Promise<TestUser> {
  const user = h.tokens.user();
  await Sql.of(h.orm).run(
    'insert into user_timezones (tenant_id, user_id, timezone, updated_at) values (?, ?, ?, now())',
    [user.tenantId, user.userId, timezone],
  );
  return user;
}

async function occurrences(user: TestUser, seriesId: string, query = 'from=2026-01-01&to=2026-12-31') {
  const res = await call(h, user, 'GET', `/service/tasks/${seriesId}/occurrences?${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().items as Record<string, unknown>[];
}

const patch = async (user: TestUser, id: string, body: Record<string, unknown>) => {
  const res = await call(h, user, 'PATCH', `/service/tasks/${id}`, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

beforeEach(() => clock.set('2026-10-28T12:00:00Z'));

describe('occurrences across DST changes', () => {
  it('keeps 07:00-09:00 local in America/New_York on both sides of the November change', async () => {
    const user = await userIn('America/New_York');
    const series = await createTask(h, user, {
      title: 'Morning run',
      recurrence: { rule: 'FREQ=DAILY', window: { start: '07:00', end: '09:00' }, horizon_days: 7 },
    });
    expect(series.recurrence).toEqual({
      rule: 'FREQ=DAILY',
      starts_on: '2026-10-28',
      until: null,
      window: { start: '07:00', end: '09:00' },
      horizon_days: 7,
      auto_schedule: true,
    });
    expect(series.series_stats).toEqual({ done: 0, skipped: 0, missed: 0, current_streak: 0, longest_streak: 0 });
    const items = await occurrences(user, series.id);
    expect(items.map((o) => o.occurrence_date)).toEqual([
      '2026-10-28',
      '2026-10-29',
      '2026-10-30',
      '2026-10-31',
      '2026-11-01',
      '2026-11-02',
      '2026-11-03',
      '2026-11-04',
    ]);
    const byDate = new Map(items.map((o) => [o.occurrence_date, o]));
    // EDT (UTC-4) until 1 November 02:00, EST (UTC-5) from then on.
    expect(byDate.get('2026-10-31')).toMatchObject({
      earliest_start_at: '2026-10-31T11:00:00.000Z',
      deadline_at: '2026-10-31T13:00:00.000Z',
      series_id: series.id,
      parent_task_id: null,
      title: 'Morning run',
      status: 'pending',
      recurrence: null,
    });
    expect(byDate.get('2026-11-01')).toMatchObject({ earliest_start_at: '2026-11-01T12:00:00.000Z' });
    expect(byDate.get('2026-11-02')).toMatchObject({ deadline_at: '2026-11-02T14:00:00.000Z' });
  });

  it("follows the settings timezone once the user set one, whatever the profile's says later", async () => {
    const user = await userIn('UTC');
    const settingsChange = (timezone: string, at: string) =>
      makeEvent(
        schedulerEvents.settingsTimezoneChanged,
        { tenantId: user.tenantId, userId: user.userId, at: new Date(at) },
        { timezone, updated_at: at },
      );
    await publishHandled(h.transport, settingsChange('Asia/Tokyo', '2026-10-28T10:00:00Z'));
    // An older settings change arriving late changes nothing.
    await publishHandled(h.transport, settingsChange('Europe/Paris', '2026-10-27T10:00:00Z'));
    const series = await createTask(h, user, {
      title: 'Tea',
      recurrence: { rule: 'FREQ=DAILY', window: { start: '15:00', end: '16:00' }, horizon_days: 1 },
    });
    const items = await occurrences(user, series.id);
    // 15:00 in Tokyo (UTC+9) is 06:00Z; in Paris it would be 14:00Z.
    expect(items.map((o) => [o.occurrence_date, o.earliest_start_at])).toEqual([
      ['2026-10-28', '2026-10-28T06:00:00.000Z'],
      ['2026-10-29', '2026-10-29T06:00:00.000Z'],
    ]);
  });

  it('in Europe/Berlin, across the October change', async () => {
    clock.set('2026-10-20T12:00:00Z');
    const user = await userIn('Europe/Berlin');
    const series = await createTask(h, user, {
      title: 'Stretch',
      recurrence: { rule: 'FREQ=WEEKLY;BYDAY=SA,MO', window: { start: '18:00', end: '19:00' }, horizon_days: 14 },
    });
    const items = await occurrences(user, series.id);
    expect(items.map((o) => [o.occurrence_date, o.earliest_start_at])).toEqual([
      ['2026-10-24', '2026-10-24T16:00:00.000Z'],
      ['2026-10-26', '2026-10-26T17:00:00.000Z'],
      ['2026-10-31', '2026-10-31T17:00:00.000Z'],
      ['2026-11-02', '2026-11-02T17:00:00.000Z'],
    ]);
  });

  it('names the last Friday of each month with BYDAY=-1FR', async () => {
    const user = await userIn('UTC');
    const series = await createTask(h, user, {
      title: 'Month-end review',
      recurrence: { rule: 'FREQ=MONTHLY;BYDAY=-1FR', starts_on: '2026-10-01', horizon_days: 60 },
    });
    const items = await occurrences(user, series.id);
    expect(items.map((o) => o.occurrence_date)).toEqual(['2026-10-30', '2026-11-27', '2026-12-25']);
  });

  it('refuses rules outside the contract, naming the field', async () => {
    const user = await userIn('UTC');
    for (const [recurrence, loc] of [
      [{ rule: 'FREQ=HOURLY' }, ['body', 'recurrence', 'rule']],
      [{ rule: 'FREQ=DAILY;BYHOUR=7,19' }, ['body', 'recurrence', 'rule']],
      [{ rule: 'FREQ=DAILY', window: { start: '09:00', end: '08:00' } }, ['body', 'recurrence', 'window', 'end']],
      [{ rule: 'FREQ=DAILY', horizon_days: 61 }, ['body', 'recurrence', 'horizon_days']],
      [{ rule: 'FREQ=DAILY', starts_on: '2025-01-01' }, ['body', 'recurrence', 'starts_on']],
    ] as const) {
      const res = await call(h, user, 'POST', '/service/tasks', { title: 'x', recurrence });
      expect(res.statusCode, JSON.stringify(recurrence)).toBe(422);
      expect(res.json().errors.map((d: { loc: string[] }) => d.loc)).toContainEqual(loc);
    }
  });
});

describe('steps, edits and history', () => {
  it('copies the steps of a routine into every occurrence, and a series edit reaches only future open ones', async () => {
    const user = await userIn('UTC');
    const root = await createTask(h, user, { title: 'Morning routine', duration_min: 0 });
    for (const title of ['Water', 'Stretch', 'Journal']) {
      await createTask(h, user, { title, parent_task_id: root.id, duration_min: 10 });
    }
    await patch(user, root.id, {
      recurrence: { rule: 'FREQ=DAILY', starts_on: '2026-10-26', horizon_days: 3 },
    });
    const items = await occurrences(user, root.id);
    // Two past dates (26 and 27 October), today and three ahead.
    expect(items.map((o) => o.occurrence_date)).toEqual([
      '2026-10-26',
      '2026-10-27',
      '2026-10-28',
      '2026-10-29',
      '2026-10-30',
      '2026-10-31',
    ]);
    const tree = (await call(h, user, 'GET', `/service/tasks/${items[2]?.id}/tree`)).json();
    expect(tree.children.map((c: { title: string }) => c.title)).toEqual(['Water', 'Stretch', 'Journal']);
    // The scheduler is asked to place today's and later occurrences, each with its steps (its block), not the past.
    const requested = await Sql.of(h.orm).rows(
      placementRequestRow,
      "select payload from outbox where subject = 'task.series.occurrences_generated'",
    );
    const placeIds = requested
      .filter((r) => r.payload.data.series_id === root.id)
      .flatMap((r) => r.payload.data.task_ids);
    expect(placeIds).toHaveLength(4 * 4);
    expect(placeIds).toEqual(expect.arrayContaining([items[2]?.id, ...tree.children.map((c: { id: string }) => c.id)]));
    expect(placeIds).not.toContain(items[0]?.id);
    expect(tree.children.every((c: { series_id: string }) => c.series_id === root.id)).toBe(true);
    expect(tree.rolled_up_duration_min).toBe(30);

    // History: the 26th done, the 27th skipped; today's stays open.
    await patch(user, items[0]?.id as string, { status: 'done' });
    await patch(user, items[1]?.id as string, { status: 'skipped' });
    // One occurrence's own edit stays local.
    await patch(user, items[4]?.id as string, { title: 'Routine at the lake' });

    await patch(user, root.id, { title: 'Morning ritual', priority: 1 });
    const after = await occurrences(user, root.id);
    expect(after.map((o) => [o.occurrence_date, o.title, o.priority])).toEqual([
      ['2026-10-26', 'Morning routine', 3],
      ['2026-10-27', 'Morning routine', 3],
      ['2026-10-28', 'Morning ritual', 1],
      ['2026-10-29', 'Morning ritual', 1],
      // Its own title stays; the priority it never changed follows the series.
      ['2026-10-30', 'Routine at the lake', 1],
      ['2026-10-31', 'Morning ritual', 1],
    ]);

    // A step added to, renamed in or removed from the template reaches the future open occurrences only.
    const stepsOf = async (id: unknown) =>
      (await call(h, user, 'GET', `/service/tasks/${id}/tree`)).json().children.map((c: { title: string }) => c.title);
    const extra = await createTask(h, user, { title: 'Plan the day', parent_task_id: root.id, duration_min: 5 });
    const water = (await call(h, user, 'GET', `/service/tasks?parent_task_id=${root.id}`))
      .json()
      .find((t: { title: string }) => t.title === 'Water');
    await patch(user, water.id, { title: 'Drink water' });
    expect((await call(h, user, 'DELETE', `/service/tasks/${extra.id}`)).statusCode).toBe(204);
    await createTask(h, user, { title: 'Make the bed', parent_task_id: root.id, duration_min: 5 });
    const bed = (await call(h, user, 'GET', `/service/tasks?parent_task_id=${root.id}`))
      .json()
      .find((t: { title: string }) => t.title === 'Make the bed');
    expect((await call(h, user, 'POST', `/service/tasks/${bed.id}/reorder`, { sort_order: 0 })).statusCode).toBe(200);
    expect(await stepsOf(items[0]?.id)).toEqual(['Water', 'Stretch', 'Journal']);
    expect(await stepsOf(items[3]?.id)).toEqual(['Make the bed', 'Drink water', 'Stretch', 'Journal']);
    // A step moved out of the template leaves the future occurrences; the series itself never nests.
    const journal = (await call(h, user, 'GET', `/service/tasks?parent_task_id=${root.id}`))
      .json()
      .find((t: { title: string }) => t.title === 'Journal');
    expect(
      (await call(h, user, 'POST', `/service/tasks/${journal.id}/move`, { parent_task_id: null })).statusCode,
    ).toBe(200);
    expect(await stepsOf(items[3]?.id)).toEqual(['Make the bed', 'Drink water', 'Stretch']);
    const nest = await call(h, user, 'POST', `/service/tasks/${root.id}/move`, { parent_task_id: journal.id });
    expect(nest.statusCode).toBe(422);

    // A changed rule drops future open dates that no longer match and keeps history.
    await patch(user, root.id, { recurrence: { rule: 'FREQ=WEEKLY;BYDAY=TH', horizon_days: 14 } });
    const weekly = await occurrences(user, root.id);
    // Thursdays through today + 14 days (11 November); the open days that are not Thursdays are gone.
    expect(weekly.map((o) => o.occurrence_date)).toEqual(['2026-10-26', '2026-10-27', '2026-10-29', '2026-11-05']);
    const series = (await call(h, user, 'GET', `/service/tasks/${root.id}`)).json();
    expect(series.series_stats).toEqual({ done: 1, skipped: 1, missed: 0, current_streak: 1, longest_streak: 1 });

    // Deleting the series keeps the history, with its series id.
    expect((await call(h, user, 'DELETE', `/service/tasks/${root.id}`)).statusCode).toBe(204);
    const left = (await call(h, user, 'GET', `/service/tasks?series_id=${root.id}&limit=500`)).json();
    const leftRoots = left.filter((t: { occurrence_date: string | null }) => t.occurrence_date !== null);
    expect(leftRoots.map((t: { occurrence_date: string }) => t.occurrence_date).sort()).toEqual([
      '2026-10-26',
      '2026-10-27',
    ]);
  });

  it('counts missed days and streaks', async () => {
    const user = await userIn('UTC');
    const series = await createTask(h, user, {
      title: 'Read',
      recurrence: { rule: 'FREQ=DAILY', starts_on: '2026-10-23', horizon_days: 1 },
    });
    const items = await occurrences(user, series.id);
    // 23 done, 24 missed, 25 done, 26 skipped, 27 done, 28 (today) open.
    for (const index of [0, 2, 4]) await patch(user, items[index]?.id as string, { status: 'done' });
    await patch(user, items[3]?.id as string, { status: 'skipped' });
    const read = (await call(h, user, 'GET', `/service/tasks/${series.id}`)).json();
    expect(read.series_stats).toEqual({ done: 3, skipped: 1, missed: 1, current_streak: 2, longest_streak: 2 });
  });
});

describe('the fill worker', () => {
  it('extends a series exactly once per date when two workers race, and asks the scheduler to place the new ones', async () => {
    const user = await userIn('UTC');
    const series = await createTask(h, user, { title: 'Walk', recurrence: { rule: 'FREQ=DAILY', horizon_days: 2 } });
    clock.set('2026-11-05T12:00:00Z');
    const worker = () =>
      new Routines(Sql.of(h.orm), clock, { kick: () => {} }, new TaskService(Sql.of(h.orm), clock, { kick: () => {} }));
    const [a, b] = await Promise.all([worker().fillDue(1000), worker().fillDue(1000)]);
    expect(a + b).toBeGreaterThanOrEqual(1);
    const items = await occurrences(user, series.id);
    const dates = items.map((o) => o.occurrence_date);
    expect(new Set(dates).size).toBe(dates.length);
    // Through 30 October at creation, then from today (5 November) through the 7th: the days between are not
    // back-filled as missed by a late worker.
    expect(dates).toEqual(['2026-10-28', '2026-10-29', '2026-10-30', '2026-11-05', '2026-11-06', '2026-11-07']);
    const placements = await Sql.of(h.orm).rows(
      placementRequestRow,
      "select payload from outbox where subject = 'task.series.occurrences_generated'",
    );
    const forSeries = placements.filter((p) => p.payload.data.series_id === series.id);
    expect(forSeries.flatMap((p) => p.payload.data.task_ids).sort()).toEqual(items.map((o) => o.id).sort());
  });

  it('never writes a second occurrence for one date, even when the code asks twice', async () => {
    const user = await userIn('UTC');
    const series = await createTask(h, user, { title: 'Floss', recurrence: { rule: 'FREQ=DAILY', horizon_days: 1 } });
    const duplicate = Sql.of(h.orm).run(
      `insert into tasks (id, tenant_id, user_id, parent_task_id, depth, sort_order, title, status, priority,
         duration_min, reminder_channels, reminder_offset_min, tags, created_at, updated_at, version, series_id,
         occurrence_date)
       values (gen_random_uuid(), ?, ?, null, 1, 99, 'dup', 'pending', 3, 30, '{}', 10, '{}', now(), now(), 1, ?, '2026-10-28')`,
      [user.tenantId, user.userId, series.id],
    );
    await expect(duplicate).rejects.toThrow(/tasks_series_occurrence_unique/);
    expect((await occurrences(user, series.id)).length).toBe(2);
  });
});

describe('capture from text', () => {
  // `POST /tasks/parse` is the scheduler's (services/scheduler/test/capture.test.ts); the builtin parser's
  // phrases are tested where it lives (packages/scheduling).
  it('creates from raw_input alone with the builtin parse (a given field wins)', async () => {
    const user = await userIn('Europe/Berlin');
    const created = await createTask(h, user, { raw_input: 'Call the bank tomorrow 9am for 15 min p1', priority: 4 });
    expect(created).toMatchObject({
      title: 'Call the bank',
      duration_min: 15,
      priority: 4,
      raw_input: 'Call the bank tomorrow 9am for 15 min p1',
    });
    const routine = await createTask(h, user, { raw_input: 'Meditate daily at 7am' });
    expect(routine.recurrence).toMatchObject({ rule: 'FREQ=DAILY' });
    const none = await call(h, user, 'POST', '/service/tasks', { raw_input: 'tomorrow 9am' });
    expect(none.statusCode).toBe(422);
    expect(none.json().errors[0].loc).toEqual(['body', 'title']);
  });
});
