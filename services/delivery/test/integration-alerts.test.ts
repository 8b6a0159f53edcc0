import { integrationEvents, makeEvent } from '@routinely/events';
import { ManualClock } from '@routinely/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, publishHandled, startHarness } from './harness.js';

const clock = new ManualClock('2026-11-21T08:00:00.000Z');
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h?.close());

describe('calendar integration alerts in the bell', () => {
  it('writes one integration.reauth_required notification per failed event, even when redelivered', async () => {
    const user = h.tokens.user();
    const integration = {
      id: '019ab000-0000-7000-8000-000000000001',
      tenant_id: user.tenantId,
      user_id: user.userId,
      provider: 'google' as const,
      status: 'error' as const,
      account_email: 'person@gmail.test',
      last_error: 'reauth_required',
      updated_at: clock.now().toISOString(),
    };
    const meta = { tenantId: user.tenantId, userId: user.userId, at: clock.now() };
    const failed = makeEvent(integrationEvents.integrationFailed, meta, { integration, reauth_required: true });
    await publishHandled(h.transport, failed);
    await publishHandled(h.transport, failed);
    // A failure that does not need the user (throttling, say) is not a bell notice.
    await publishHandled(
      h.transport,
      makeEvent(integrationEvents.integrationFailed, meta, { integration, reauth_required: false }),
    );
    const feed = (
      await h.app.inject({ url: '/api/v1/service/notifications', headers: await h.tokens.auth(user) })
    ).json();
    expect(feed.total).toBe(1);
    expect(feed.items[0]).toMatchObject({
      kind: 'integration.reauth_required',
      title: 'Reconnect Google Calendar',
      data: { integration_id: integration.id, provider: 'google' },
    });
    expect(feed.items[0].body).toContain('person@gmail.test');
  });
});
