import { authEvents, makeEvent } from '@routinely/events';
import { ManualClock } from '@routinely/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, publishHandled, sqlRows, startHarness } from './harness.js';

const clock = new ManualClock('2026-11-21T08:00:00.000Z');
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h?.close());

const emailOf = async (userId: string) =>
  (await sqlRows<{ email: string }>(h.orm, 'select email from user_contacts where user_id = ?', [userId]))[0]?.email;

describe('where reminder emails go', () => {
  it('takes the address from the caller token when nothing else is known', async () => {
    const user = h.tokens.user({ email: 'token@example.test' });
    const res = await h.app.inject({ url: '/api/v1/service/notifications', headers: await h.tokens.auth(user) });
    expect(res.statusCode).toBe(200);
    expect(await emailOf(user.userId)).toBe('token@example.test');
  });

  it('never lets an older token overwrite the address an auth event reported', async () => {
    const user = h.tokens.user({ email: 'old@example.test' });
    await publishHandled(
      h.transport,
      makeEvent(
        authEvents.userUpdated,
        { tenantId: user.tenantId, userId: user.userId, at: clock.now() },
        {
          user: {
            id: user.userId,
            tenant_id: user.tenantId,
            email: 'new@example.test',
            name: null,
            timezone: null,
            is_active: true,
          },
        },
      ),
    );
    expect(await emailOf(user.userId)).toBe('new@example.test');
    await h.app.inject({ url: '/api/v1/service/notifications', headers: await h.tokens.auth(user) });
    expect(await emailOf(user.userId)).toBe('new@example.test');
  });
});
