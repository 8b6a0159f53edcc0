import { makeEvent, schedulerEvents } from '@routinely/events';
import { ManualClock } from '@routinely/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, publishHandled, startHarness } from './harness.js';

const clock = new ManualClock('2026-11-21T08:00:00.000Z');
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h?.close());

describe("the scheduler's soft-cap bell", () => {
  it('puts one quota.soft_breached notification in the feed, even when the event comes twice', async () => {
    const user = h.tokens.user();
    const event = makeEvent(
      schedulerEvents.quotaSoftBreached,
      { tenantId: user.tenantId, userId: user.userId, at: clock.now() },
      {
        user_id: user.userId,
        tenant_id: user.tenantId,
        date: '2026-11-21',
        timezone: 'Europe/Berlin',
        daily_usd: 5.2,
        soft_cap_usd: 5,
        hard_cap_usd: 20,
      },
    );
    await publishHandled(h.transport, event);
    await publishHandled(h.transport, { ...event });
    const res = await h.app.inject({ url: '/api/v1/service/notifications', headers: await h.tokens.auth(user) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.items).toEqual([
      expect.objectContaining({
        id: event.id,
        kind: 'quota.soft_breached',
        read: false,
        data: expect.objectContaining({ date: '2026-11-21', daily_usd: 5.2, soft_cap_usd: 5 }),
      }),
    ]);
    expect(body.items[0].body).toContain('5.20 USD');
    // Nobody else's feed gets it.
    const other = h.tokens.user({ tenantId: user.tenantId });
    const theirs = await h.app.inject({ url: '/api/v1/service/notifications', headers: await h.tokens.auth(other) });
    expect(theirs.json().items).toEqual([]);
  });
});
