import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aliasApiFor, apiFor, startTarget, type Target } from '../src/harness.js';
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
    const asOwner = apiFor(target, owner.token);
    const asFriend = apiFor(target, friend.token);
    const created = await asOwner.POST('/api/v1/calendars', { body: { name: 'Family', timezone: 'Europe/Berlin' } });
    expect(created.response.status).toBe(201);
    const id = String(created.data?.id);
    const path = { calendar_id: id };
    const beforeSharing = await aliasApiFor(target, friend.token).GET('/api/v1/calendars/{calendar_id}', {
      params: { path },
    });
    expect(beforeSharing.response.status).toBe(404);
    const share = await asOwner.POST('/api/v1/calendars/{calendar_id}/share', {
      params: { path },
      body: { email: friend.email, permission: 'view' },
    });
    expect(share.response.status).toBe(201);
    expect(share.data).toMatchObject({ calendar_id: id, user_id: friend.id, permission: 'view' });
    const again = await asOwner.POST('/api/v1/calendars/{calendar_id}/share', {
      params: { path },
      body: { email: friend.email, permission: 'edit' },
    });
    expect(again.response.status).toBe(409);
    expect(again.error?.code).toBe('already_shared');
    const unknown = await asOwner.POST('/api/v1/calendars/{calendar_id}/share', {
      params: { path },
      body: { email: stranger.email, permission: 'view' },
    });
    expect(unknown.response.status).toBe(404);
    const seen = await asFriend.GET('/api/v1/calendars/{calendar_id}', { params: { path } });
    expect(seen.response.status).toBe(200);
    expect(seen.data?.permission).toBe('view');
    const edit = await asFriend.PATCH('/api/v1/calendars/{calendar_id}', { params: { path }, body: { name: 'Mine' } });
    expect(edit.response.status).toBe(403);
    const hidden = await apiFor(target, stranger.token).GET('/api/v1/calendars/{calendar_id}', { params: { path } });
    expect(hidden.response.status).toBe(404);
  });

  it('a logout on the auth service ends the token on the calendar service at once', async () => {
    const user = await registerUser(target);
    const api = apiFor(target, user.token);
    expect((await api.GET('/api/v1/calendars')).response.status).toBe(200);
    expect((await api.POST('/api/v1/auth/logout', { body: {} })).response.status).toBe(200);
    const after = await api.GET('/api/v1/calendars');
    expect(after.response.status).toBe(401);
    expect(after.response.headers.get('www-authenticate')).toBe('Bearer');
  });
});
