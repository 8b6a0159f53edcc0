import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTarget, type Target } from '../src/harness.js';
import { registerUser } from '../src/users.js';

let target: Target;
beforeAll(async () => {
  target = await startTarget();
});
afterAll(() => target?.close());

describe('shared calendars across services', () => {
  it('shares by email (looked up in the auth service over gRPC) and enforces the levels', async () => {
    const owner = await registerUser(target);
    const friend = await registerUser(target, owner);
    const stranger = await registerUser(target);
    const created = await call(target, 'POST', '/api/v1/calendars', {
      token: owner.token,
      body: { name: 'Family', timezone: 'Europe/Berlin' },
    });
    expect(created.status).toBe(201);
    const id = created.json.id;
    expect((await call(target, 'GET', `/v1/calendars/${id}`, { token: friend.token })).status).toBe(404);
    const share = await call(target, 'POST', `/api/v1/calendars/${id}/share`, {
      token: owner.token,
      body: { email: friend.email, permission: 'view' },
    });
    expect(share.status).toBe(201);
    expect(share.json).toMatchObject({ calendar_id: id, user_id: friend.id, permission: 'view' });
    expect(
      (
        await call(target, 'POST', `/api/v1/calendars/${id}/share`, {
          token: owner.token,
          body: { email: friend.email, permission: 'edit' },
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await call(target, 'POST', `/api/v1/calendars/${id}/share`, {
          token: owner.token,
          body: { email: stranger.email, permission: 'view' },
        })
      ).status,
    ).toBe(404);
    const seen = await call(target, 'GET', `/api/v1/calendars/${id}`, { token: friend.token });
    expect(seen.status).toBe(200);
    expect(seen.json.permission).toBe('view');
    expect(
      (await call(target, 'PATCH', `/api/v1/calendars/${id}`, { token: friend.token, body: { name: 'Mine' } })).status,
    ).toBe(403);
    expect((await call(target, 'GET', `/api/v1/calendars/${id}`, { token: stranger.token })).status).toBe(404);
  });

  it('a logout on the auth service ends the token on the calendar service at once', async () => {
    const user = await registerUser(target);
    expect((await call(target, 'GET', '/api/v1/calendars', { token: user.token })).status).toBe(200);
    expect((await call(target, 'POST', '/api/v1/auth/logout', { token: user.token, body: {} })).status).toBe(200);
    const after = await call(target, 'GET', '/api/v1/calendars', { token: user.token });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toBe('Bearer');
  });
});
