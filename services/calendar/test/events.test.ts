import { type EventEnvelope, JetStreamTransport } from '@routinely/events';
import { quietLogger, requireEnv, sqlRows, uniqueName, waitFor } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

let h: Harness;
let transport: JetStreamTransport;
const received: EventEnvelope[] = [];

beforeAll(async () => {
  transport = await JetStreamTransport.connect(requireEnv('NATS_URL'), quietLogger(), uniqueName('calendar'));
  h = await startHarness({ transport, startService: true });
  const follower = {
    durable: 'calendar-test-follower',
    subjects: ['calendar.>'],
    policy: { ackWaitMs: 30_000, maxDeliver: 3, backoffMs: [100] },
  };
  await transport.subscribe(follower, async ({ payload }) => {
    received.push(payload as EventEnvelope);
  });
});
afterAll(async () => {
  await h?.close();
  await transport?.close();
});

async function countOutbox(where = 'true'): Promise<number> {
  const rows = await sqlRows<{ n: number }>(h.orm, `select count(*)::int as n from outbox where ${where}`);
  return rows[0]?.n ?? -1;
}

describe('calendar events through the outbox', () => {
  it('publishes calendar, item and sharing changes to JetStream in order, with the contract envelope', async () => {
    const owner = h.user();
    const friend = h.user(owner.tenantId);
    const cal = await h.createCalendar(owner, { name: 'Evented' });
    await h.call(owner, 'PATCH', `/calendars/${cal.id}`, { name: 'Evented 2' });
    const item = (
      await h.call(owner, 'POST', `/calendars/${cal.id}/items`, {
        title: 'Standup',
        start_at: '2026-11-23T09:00:00Z',
        end_at: '2026-11-23T09:15:00Z',
      })
    ).json();
    await h.call(owner, 'PATCH', `/calendars/${cal.id}/items/${item.id}`, { title: 'Daily standup' });
    await h.call(owner, 'DELETE', `/calendars/${cal.id}/items/${item.id}`);
    const share = (await h.share(owner, cal.id, { user_id: friend.userId, permission: 'view' })).json();
    await h.call(owner, 'PATCH', `/calendars/${cal.id}/sharing/${share.id}`, { permission: 'edit' });
    await h.call(owner, 'DELETE', `/calendars/${cal.id}/sharing/${share.id}`);
    await h.call(owner, 'POST', `/calendars/${cal.id}/items`, {
      title: 'Lunch',
      start_at: '2026-11-23T12:00:00Z',
      end_at: '2026-11-23T13:00:00Z',
    });
    await h.call(owner, 'DELETE', `/calendars/${cal.id}`);

    const expected = [
      'calendar.calendar.created',
      'calendar.calendar.updated',
      'calendar.item.created',
      'calendar.item.updated',
      'calendar.item.cancelled',
      'calendar.sharing.granted',
      'calendar.sharing.updated',
      'calendar.sharing.revoked',
      'calendar.item.created',
      'calendar.calendar.deleted',
    ];
    await waitFor(() => received.length >= expected.length);
    expect(received.map((e) => e.type)).toEqual(expected);
    for (const e of received) {
      expect(e).toMatchObject({
        tenant_id: owner.tenantId,
        user_id: owner.userId,
        occurred_at: expect.stringMatching(/Z$/),
      });
    }
    expect(received[1]?.data).toMatchObject({ calendar: { id: cal.id, name: 'Evented 2' } });
    expect(received[4]?.data).toMatchObject({ item: { id: item.id, status: 'cancelled' } });
    expect(received[6]?.data).toMatchObject({
      sharing: { id: share.id, permission: 'edit' },
      previous_permission: 'view',
    });
    expect(received[9]?.data).toMatchObject({ calendar: { id: cal.id, is_active: false }, items_deleted: 2 });
    // The relay marks rows published in the transaction that claimed them, just after the publish.
    await waitFor(async () => (await countOutbox('published_at is null')) === 0);
    expect(await countOutbox('published_at is null')).toBe(0);
  });

  it('writes no event when a change is refused or changes nothing', async () => {
    const owner = h.user();
    const cal = await h.createCalendar(owner, { name: 'Quiet' });
    const before = await countOutbox();
    await h.call(owner, 'PATCH', `/calendars/${cal.id}`, { name: 'Quiet' });
    await h.call(h.user(owner.tenantId), 'PATCH', `/calendars/${cal.id}`, { name: 'Hijacked' });
    await h.call(owner, 'POST', `/calendars/${cal.id}/items`, {
      title: 'x',
      start_at: '2026-11-23T12:00:00Z',
      end_at: '2026-11-23T11:00:00Z',
    });
    expect(await countOutbox()).toBe(before);
  });
});
