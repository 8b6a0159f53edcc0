import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorLocs, type Harness, startHarness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

async function setup() {
  const owner = h.user();
  const calendarId: string = (await h.createCalendar(owner, { name: 'Household' })).id;
  return { owner, calendarId };
}

describe('calendar sharing', () => {
  it('shares by user_id and by email (looked up over the auth gRPC service) with the contract shape', async () => {
    const { owner, calendarId } = await setup();
    const byId = h.user(owner.tenantId);
    const byEmail = h.directory.add(h.tokens.user({ tenantId: owner.tenantId, email: 'grandma@family.test' }));
    const first = await h.share(owner, calendarId, { user_id: byId.userId, permission: 'edit' });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      calendar_id: calendarId,
      user_id: byId.userId,
      email: byId.email,
      permission: 'edit',
      granted_by: owner.userId,
      created_at: h.clock.now().toISOString(),
    });
    const second = await h.share(owner, calendarId, { email: 'Grandma@Family.test', permission: 'view' });
    expect(second.statusCode).toBe(201);
    expect(second.json()).toMatchObject({ user_id: byEmail.userId, email: 'grandma@family.test' });
    // The lookup ran scoped to the owner's tenant, carried in the signed service token.
    expect(h.directory.lookupTenants.at(-1)).toBe(owner.tenantId);
    const got = await h.call(byEmail, 'GET', `/calendars/${calendarId}`);
    expect(got.json().permission).toBe('view');
  });

  it('answers 409 on a second share with the same user, however it is addressed', async () => {
    const { owner, calendarId } = await setup();
    const friend = h.user(owner.tenantId);
    expect((await h.share(owner, calendarId, { user_id: friend.userId, permission: 'view' })).statusCode).toBe(201);
    const again = await h.share(owner, calendarId, { email: friend.email, permission: 'admin' });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('already_shared');
    const self = await h.share(owner, calendarId, { user_id: owner.userId, permission: 'view' });
    expect(self.statusCode).toBe(409);
    // Two grants racing for the same user: the unique index lets exactly one through.
    const rival = h.user(owner.tenantId);
    const raced = await Promise.all([
      h.share(owner, calendarId, { user_id: rival.userId, permission: 'view' }),
      h.share(owner, calendarId, { email: rival.email, permission: 'edit' }),
    ]);
    expect(raced.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const list = (await h.call(owner, 'GET', `/calendars/${calendarId}/sharing`)).json();
    expect(list.map((s: { user_id: string }) => s.user_id)).toEqual([friend.userId, rival.userId]);
    expect(list[0].permission).toBe('view');
  });

  it('404s for an unknown user and for a user of another tenant', async () => {
    const { owner, calendarId } = await setup();
    const foreigner = h.user();
    for (const body of [
      { user_id: crypto.randomUUID(), permission: 'view' },
      { email: 'nobody@nowhere.test', permission: 'view' },
      { user_id: foreigner.userId, permission: 'view' },
      { email: foreigner.email, permission: 'view' },
    ]) {
      const res = await h.share(owner, calendarId, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(404);
      expect(res.json().detail).toBe('User not found');
    }
  });

  it('validates the share body', async () => {
    const { owner, calendarId } = await setup();
    const friend = h.user(owner.tenantId);
    for (const [body, loc] of [
      [{ permission: 'view' }, 'body.user_id'],
      [{ user_id: friend.userId, email: friend.email, permission: 'view' }, 'body.user_id'],
      [{ user_id: friend.userId, permission: 'owner' }, 'body.permission'],
      [{ user_id: 'friend', permission: 'view' }, 'body.user_id'],
      [{ email: 'not-an-email', permission: 'view' }, 'body.email'],
    ] as const) {
      const res = await h.share(owner, calendarId, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(errorLocs(res)).toContain(loc);
    }
    const created = (await h.share(owner, calendarId, { user_id: friend.userId, permission: 'view' })).json();
    const patch = await h.call(owner, 'PATCH', `/calendars/${calendarId}/sharing/${created.id}`, {
      permission: 'owner',
    });
    expect(patch.statusCode).toBe(422);
  });

  it('nobody grants more than they hold and nobody but the owner touches the owner', async () => {
    const { owner, calendarId } = await setup();
    const admin = h.user(owner.tenantId);
    const editor = h.user(owner.tenantId);
    const viewer = h.user(owner.tenantId);
    const newcomer = h.user(owner.tenantId);
    const adminShare = (await h.share(owner, calendarId, { user_id: admin.userId, permission: 'admin' })).json();
    const editShare = (await h.share(owner, calendarId, { user_id: editor.userId, permission: 'edit' })).json();
    const viewShare = (await h.share(owner, calendarId, { user_id: viewer.userId, permission: 'view' })).json();
    // An editor cannot share at all, not even view, and cannot raise their own level.
    expect((await h.share(editor, calendarId, { user_id: newcomer.userId, permission: 'view' })).statusCode).toBe(403);
    const selfPromote = await h.call(editor, 'PATCH', `/calendars/${calendarId}/sharing/${editShare.id}`, {
      permission: 'admin',
    });
    expect(selfPromote.statusCode).toBe(403);
    const viewerPromote = await h.call(viewer, 'PATCH', `/calendars/${calendarId}/sharing/${viewShare.id}`, {
      permission: 'edit',
    });
    expect(viewerPromote.statusCode).toBe(403);
    // An admin may grant up to admin and manage other shares...
    const granted = await h.share(admin, calendarId, { user_id: newcomer.userId, permission: 'admin' });
    expect(granted.statusCode).toBe(201);
    expect(granted.json().granted_by).toBe(admin.userId);
    const demote = await h.call(admin, 'PATCH', `/calendars/${calendarId}/sharing/${editShare.id}`, {
      permission: 'view',
    });
    expect(demote.json().permission).toBe('view');
    // ...but the owner holds no share an admin could reach, and cannot be re-shared.
    const owned = await h.share(admin, calendarId, { user_id: owner.userId, permission: 'view' });
    expect(owned.statusCode).toBe(409);
    const sharing = (await h.call(admin, 'GET', `/calendars/${calendarId}/sharing`)).json();
    expect(sharing.map((s: { user_id: string }) => s.user_id)).not.toContain(owner.userId);
    expect((await h.call(owner, 'GET', `/calendars/${calendarId}`)).json().permission).toBe('owner');
    // Revoking an admin's share takes their rights away at once.
    expect((await h.call(owner, 'DELETE', `/calendars/${calendarId}/sharing/${adminShare.id}`)).statusCode).toBe(204);
    expect((await h.call(admin, 'GET', `/calendars/${calendarId}`)).statusCode).toBe(404);
    expect((await h.share(admin, calendarId, { user_id: viewer.userId, permission: 'view' })).statusCode).toBe(404);
  });

  it('shows every share to the owner and admins and only their own entry to others', async () => {
    const { owner, calendarId } = await setup();
    const admin = h.user(owner.tenantId);
    const editor = h.user(owner.tenantId);
    await h.share(owner, calendarId, { user_id: admin.userId, permission: 'admin' });
    await h.share(owner, calendarId, { user_id: editor.userId, permission: 'edit' });
    const forOwner = (await h.call(owner, 'GET', `/calendars/${calendarId}/sharing`)).json();
    const forAdmin = (await h.call(admin, 'GET', `/calendars/${calendarId}/sharing`)).json();
    const forEditor = (await h.call(editor, 'GET', `/calendars/${calendarId}/sharing`)).json();
    expect(forOwner).toHaveLength(2);
    expect(forAdmin).toEqual(forOwner);
    expect(forEditor).toEqual([expect.objectContaining({ user_id: editor.userId, permission: 'edit' })]);
  });

  it('404s for a sharing id of another calendar and after revocation', async () => {
    const { owner, calendarId } = await setup();
    const other = (await h.createCalendar(owner, { name: 'Other' })).id;
    const friend = h.user(owner.tenantId);
    const s = (await h.share(owner, other, { user_id: friend.userId, permission: 'view' })).json();
    expect(
      (await h.call(owner, 'PATCH', `/calendars/${calendarId}/sharing/${s.id}`, { permission: 'edit' })).statusCode,
    ).toBe(404);
    expect((await h.call(owner, 'DELETE', `/calendars/${calendarId}/sharing/${s.id}`)).statusCode).toBe(404);
    expect((await h.call(owner, 'DELETE', `/calendars/${other}/sharing/${s.id}`)).statusCode).toBe(204);
    expect((await h.call(owner, 'DELETE', `/calendars/${other}/sharing/${s.id}`)).statusCode).toBe(404);
    expect((await h.call(friend, 'GET', `/calendars/${other}`)).statusCode).toBe(404);
  });
});
