import { type EventEnvelope, JetStreamTransport } from '@routinely/events';
import { quietLogger, requireEnv, sqlRows, uniqueName, waitFor } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthHarness, bearer, register, startAuth } from './harness.js';

let h: AuthHarness;
let transport: JetStreamTransport;

beforeAll(async () => {
  transport = await JetStreamTransport.connect(requireEnv('NATS_URL'), quietLogger(), uniqueName('auth'));
  h = await startAuth({ transport });
});
afterAll(async () => {
  await h?.close();
  await transport?.close();
});

describe('storage', () => {
  it('hashes passwords with argon2id (>= 19 MiB, >= 2 passes) and keeps the signing key sealed', async () => {
    const { userId } = await register(h.app);
    const [user] = await sqlRows<Record<string, string>>(h.orm, 'select password_hash from users where id = ?', [
      userId,
    ]);
    expect(user?.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const keys = await sqlRows<Record<string, string>>(h.orm, 'select private_key from signing_keys');
    expect(keys).toHaveLength(1);
    expect(keys[0]?.private_key).toMatch(/^v1\./);
    expect(keys[0]?.private_key).not.toContain('PRIVATE KEY');
  });

  it('keeps one signing key across restarts', async () => {
    const before = (await h.app.inject({ url: '/.well-known/jwks.json' })).json();
    const restarted = await h.restart();
    const after = (await restarted.app.inject({ url: '/.well-known/jwks.json' })).json();
    expect(after).toEqual(before);
    // A token from the first instance verifies on the restarted one.
    const { access } = await register(h.app);
    expect((await restarted.app.inject({ url: '/api/v1/auth/me', headers: bearer(access) })).statusCode).toBe(200);
  });
});

describe('events through the outbox to JetStream', () => {
  it('publishes auth.user.registered, auth.user.updated and auth.session.revoked', async () => {
    const seen: EventEnvelope[] = [];
    const follower = {
      durable: uniqueName('auth_test'),
      subjects: ['auth.>'],
      policy: { ackWaitMs: 30_000, maxDeliver: 3, backoffMs: [100] },
    };
    const sub = await transport.subscribe(follower, async ({ payload }) => {
      seen.push(payload as EventEnvelope);
    });
    try {
      const { access, userId } = await register(h.app, { name: 'Evt' });
      await h.app.inject({
        method: 'PATCH',
        url: '/api/v1/auth/me',
        headers: bearer(access),
        payload: { timezone: 'Asia/Tokyo' },
      });
      await h.app.inject({ method: 'POST', url: '/api/v1/auth/logout', headers: bearer(access) });
      const mine = () => seen.filter((e) => e.user_id === userId);
      await waitFor(() => mine().length >= 3, { what: 'three events of this user' });
      const byType = Object.fromEntries(mine().map((e) => [e.type, e]));
      expect(byType['auth.user.registered']?.data).toMatchObject({
        user: { id: userId, name: 'Evt', is_active: true },
      });
      expect(byType['auth.user.updated']?.data).toMatchObject({ user: { id: userId, timezone: 'Asia/Tokyo' } });
      expect(byType['auth.session.revoked']?.data).toMatchObject({ user_id: userId, reason: 'logout' });
      expect(byType['auth.user.registered']?.occurred_at).toMatch(/Z$/);
    } finally {
      await sub.stop();
    }
  });
});
