import { type Orm, openOrm, Sql } from '@routinely/db';
import { makeEvent, schedulerEvents } from '@routinely/events';
import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Harness, startHarness } from './harness.js';

let h: Harness;
/** Another service's ORM on the same database, as in the all-in-one (its schema has an inbox, no timezones). */
let other: Orm;

beforeAll(async () => {
  h = await startHarness({ ROUTINE_FILL_POLL_MS: '3600000' });
  other = await openOrm(h.db.url, { schema: 'scheduler', entities: [], migrations: [] }, { migrate: false });
  await Sql.pool(other).rows('create table if not exists inbox (like task.inbox including all)');
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
  const row = await Sql.pool(h.orm).first<{ zone: string | null }>(
    'select settings_timezone as zone from task.user_timezones where tenant_id = ? and user_id = ?',
    [user.tenantId, user.userId],
  );
  return row?.zone ?? undefined;
}

describe('the settings timezone consumer (issue 37)', () => {
  it("applies a change published from inside another service's transaction, on the task service's own schema", async () => {
    const user = h.tokens.user();
    // The in-process transport drains on a later tick in the publisher's async context: here, a transaction
    // of the scheduler's ORM, as when the scheduler's relay is woken from its commit path in the all-in-one.
    await Sql.transaction(other, async () => {
      await h.transport.publish(settingsChange(user, 'Pacific/Kiritimati', '2026-10-28T11:00:00Z'));
    });
    await vi.waitFor(async () => expect(await settingsZoneOf(user)).toBe('Pacific/Kiritimati'), { timeout: 5_000 });
    // Nothing of it landed in the other service's schema.
    expect(await Sql.pool(other).rows('select * from scheduler.inbox')).toEqual([]);
    expect(await Sql.pool(h.orm).rows('select * from event_dead_letter')).toEqual([]);
  });
});
