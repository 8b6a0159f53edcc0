import { column, type Orm, openOrm, row, Sql } from '@routinely/db';
import { makeEvent, schedulerEvents } from '@routinely/events';
import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { publishHandled } from './calendar-helpers.js';
import { anyRow, call, createTask, type Harness, placementRequestRow, startHarness } from './harness.js';

let h: Harness;
/** Another service's ORM on the same database, as in the all-in-one (its schema has an inbox, no timezones). */
let other: Orm;

beforeAll(async () => {
  h = await startHarness({ ROUTINE_FILL_POLL_MS: '3600000' });
  other = await openOrm(h.db.url, { schema: 'scheduler', entities: [], migrations: [] }, { migrate: false });
  await Sql.of(other).run('create table if not exists inbox (like task.inbox including all)');
});
afterAll(async () => {
  await other?.close();
  await h?.close();
});
beforeEach(() => h.clock.set('2026-10-28T12:00:00Z'));

const settingsChange = (user: TestUser, timezone: string, at: string) =>
  makeEvent(
    schedulerEvents.settingsTimezoneChanged,
    { tenantId: user.tenantId, userId: user.userId, at: new Date(at) },
    { timezone, updated_at: at },
  );

async function settingsZoneOf(user: TestUser): Promise<string | undefined> {
  const found = await Sql.of(h.orm).first(
    row({ zone: column.text.nullable() }),
    'select settings_timezone as zone from task.user_timezones where tenant_id = ? and user_id = ?',
    [user.tenantId, user.userId],
  );
  return found?.zone ?? undefined;
}

describe('the settings timezone consumer', () => {
  it("applies a change published from inside another service's transaction, on the task service's own schema", async () => {
    const user = h.tokens.user();
    // The in-process transport drains on a later tick in the publisher's async context: here, a transaction
    // of the scheduler's ORM, as when the scheduler's relay is woken from its commit path in the all-in-one.
    await Sql.of(other).transaction(async () => {
      await h.transport.publish(settingsChange(user, 'Pacific/Kiritimati', '2026-10-28T11:00:00Z'));
    });
    await vi.waitFor(async () => expect(await settingsZoneOf(user)).toBe('Pacific/Kiritimati'), { timeout: 5_000 });
    // Nothing of it landed in the other service's schema.
    expect(await Sql.of(other).rows(anyRow, 'select * from scheduler.inbox')).toEqual([]);
    expect(await Sql.of(h.orm).rows(anyRow, 'select * from event_dead_letter')).toEqual([]);
  });
});

async function occurrencesOf(user: TestUser, seriesId: string) {
  const res = await call(h, user, 'GET', `/service/tasks/${seriesId}/occurrences?from=2026-10-01&to=2026-11-30`);
  expect(res.statusCode, res.body).toBe(200);
  return new Map((res.json().items as Record<string, unknown>[]).map((o) => [String(o.occurrence_date), o]));
}

async function placementRequests(seriesId: string): Promise<string[][]> {
  const rows = await Sql.of(h.orm).rows(
    placementRequestRow,
    "select payload from outbox where subject = 'task.series.occurrences_generated' order by created_at, id",
  );
  return rows.filter((r) => r.payload.data.series_id === seriesId).map((r) => r.payload.data.task_ids);
}

describe('a settings timezone change moves open routine occurrences', () => {
  it('moves every open future occurrence to its window in the new zone and asks for placement again; done, skipped and past ones keep theirs', async () => {
    const user = h.tokens.user();
    await publishHandled(h.transport, settingsChange(user, 'UTC', '2026-10-28T09:00:00Z'));
    const series = await createTask(h, user, {
      title: 'Morning pages',
      duration_min: 30,
      recurrence: { rule: 'FREQ=DAILY', window: { start: '07:00', end: '09:00' }, horizon_days: 5 },
    });
    const child = await createTask(h, user, { title: 'Step', parent_task_id: series.id, duration_min: 10 });
    expect(child.id).toBeTruthy();
    const before = await occurrencesOf(user, series.id);
    const id = (date: string) => String(before.get(date)?.id);
    expect(before.get('2026-10-30')).toMatchObject({ earliest_start_at: '2026-10-30T07:00:00.000Z' });
    const patch = async (date: string, body: Record<string, unknown>) => {
      const res = await call(h, user, 'PATCH', `/service/tasks/${id(date)}`, body);
      expect(res.statusCode, res.body).toBe(200);
    };
    await patch('2026-10-30', { status: 'done' });
    await patch('2026-10-31', { status: 'skipped' });
    await patch('2026-11-01', {
      status: 'scheduled',
      chosen_slot_start: '2026-11-01T07:00:00Z',
      chosen_slot_end: '2026-11-01T07:30:00Z',
    });
    const requestsBefore = (await placementRequests(series.id)).length;

    // 12:00Z on 28 October is 02:00 on 29 October in Pacific/Kiritimati (UTC+14): the 28th is past there.
    await publishHandled(h.transport, settingsChange(user, 'Pacific/Kiritimati', '2026-10-28T11:00:00Z'));
    const after = await occurrencesOf(user, series.id);
    // Past, done and skipped keep their windows.
    for (const date of ['2026-10-28', '2026-10-30', '2026-10-31']) {
      expect(after.get(date)?.earliest_start_at, date).toBe(before.get(date)?.earliest_start_at);
    }
    expect(after.get('2026-10-30')).toMatchObject({ status: 'done' });
    expect(after.get('2026-10-31')).toMatchObject({ status: 'skipped' });
    // Open ones: 07:00-09:00 in Kiritimati is 17:00-19:00Z the day before; the placed one lost its slot.
    for (const date of ['2026-10-29', '2026-11-01', '2026-11-02']) {
      const previous = new Date(`${date}T17:00:00Z`);
      previous.setUTCDate(previous.getUTCDate() - 1);
      const deadline = new Date(previous.getTime() + 2 * 3_600_000);
      expect(after.get(date), date).toMatchObject({
        status: 'pending',
        chosen_slot_start: null,
        chosen_slot_end: null,
        earliest_start_at: previous.toISOString(),
        deadline_at: deadline.toISOString(),
      });
    }
    const requests = await placementRequests(series.id);
    expect(requests).toHaveLength(requestsBefore + 1);
    const moved = new Set(requests.at(-1));
    for (const date of ['2026-10-29', '2026-11-01', '2026-11-02']) expect(moved.has(id(date)), date).toBe(true);
    for (const date of ['2026-10-28', '2026-10-30', '2026-10-31']) expect(moved.has(id(date)), date).toBe(false);

    // The same change again (a redelivery under another id, or an older one) moves nothing.
    await publishHandled(h.transport, settingsChange(user, 'Pacific/Kiritimati', '2026-10-28T11:30:00Z'));
    await publishHandled(h.transport, settingsChange(user, 'Europe/Paris', '2026-10-27T11:00:00Z'));
    expect(await placementRequests(series.id)).toHaveLength(requestsBefore + 1);
    expect(await occurrencesOf(user, series.id)).toEqual(after);
  });
});
