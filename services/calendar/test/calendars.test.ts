import { sqlRows } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorLocs, type Harness, startHarness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

describe('calendars', () => {
  it('documents every route on the canonical mount only, and reports ready', async () => {
    const doc = (await h.app.inject({ url: '/api/v1/openapi.json' })).json();
    const paths = Object.keys(doc.paths).filter((p) => p.includes('/calendars'));
    expect(paths.sort()).toEqual([
      '/api/v1/calendars',
      '/api/v1/calendars/{calendar_id}',
      '/api/v1/calendars/{calendar_id}/items',
      '/api/v1/calendars/{calendar_id}/items/{item_id}',
      '/api/v1/calendars/{calendar_id}/share',
      '/api/v1/calendars/{calendar_id}/sharing',
      '/api/v1/calendars/{calendar_id}/sharing/{sharing_id}',
    ]);
    const listParams = doc.paths['/api/v1/calendars'].get.parameters.map((p: { name: string }) => p.name);
    expect(listParams).toEqual(
      expect.arrayContaining(['page', 'page_size', 'include_shared', 'is_active', 'sort_by', 'sort_order']),
    );
    for (const check of Object.values(h.service.readiness)) await expect(check()).resolves.toBeUndefined();
  });

  it('creates a calendar owned by the caller with the contract shape, on both mounts', async () => {
    const owner = h.user();
    for (const mount of ['/api/v1', '/v1']) {
      const res = await h.call(owner, 'POST', `${mount}/calendars`, {
        name: 'Family',
        description: 'Shared plans',
        color: '#a1b2c3',
        timezone: 'Europe/Berlin',
      });
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(body).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        tenant_id: owner.tenantId,
        owner_id: owner.userId,
        name: 'Family',
        description: 'Shared plans',
        color: '#A1B2C3',
        timezone: 'Europe/Berlin',
        visibility: 'private',
        is_active: true,
        permission: 'owner',
        created_at: h.clock.now().toISOString(),
        updated_at: h.clock.now().toISOString(),
      });
      const got = await h.call(owner, 'GET', `${mount}/calendars/${body.id}`);
      expect(got.json()).toEqual(body);
    }
  });

  it('rejects invalid bodies, params and queries with 422 naming the field', async () => {
    const owner = h.user();
    const cases: [string, string, unknown, string][] = [
      ['POST', '/calendars', { name: '' }, 'body.name'],
      ['POST', '/calendars', { name: 'x'.repeat(201) }, 'body.name'],
      ['POST', '/calendars', { name: 'A', color: 'red' }, 'body.color'],
      ['POST', '/calendars', { name: 'A', timezone: 'Mars/Olympus' }, 'body.timezone'],
      ['POST', '/calendars', { name: 'A', visibility: 'everyone' }, 'body.visibility'],
      ['GET', '/calendars/not-a-uuid', undefined, 'params.calendar_id'],
      ['GET', '/calendars?page=0', undefined, 'query.page'],
      ['GET', '/calendars?page_size=0', undefined, 'query.page_size'],
      ['GET', '/calendars?page_size=101', undefined, 'query.page_size'],
      ['GET', '/calendars?sort_by=owner_id', undefined, 'query.sort_by'],
      ['GET', '/calendars?sort_order=up', undefined, 'query.sort_order'],
      ['GET', '/calendars?include_shared=maybe', undefined, 'query.include_shared'],
    ];
    for (const [method, url, payload, loc] of cases) {
      const res = await h.call(owner, method as 'GET', url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(422);
      expect(errorLocs(res)).toContain(loc);
    }
    const cal = await h.createCalendar(owner, { name: 'A' });
    const patch = await h.call(owner, 'PATCH', `/calendars/${cal.id}`, { owner_id: h.user().userId });
    expect(patch.statusCode).toBe(422);
    const badTz = await h.call(owner, 'PATCH', `/calendars/${cal.id}`, { timezone: 'Nowhere/Land' });
    expect(badTz.statusCode).toBe(422);
  });

  it('paginates with bounds and reports total and pages', async () => {
    const owner = h.user();
    for (let i = 1; i <= 25; i++) await h.createCalendar(owner, { name: `Cal ${String(i).padStart(2, '0')}` });
    const first = (await h.call(owner, 'GET', '/calendars')).json();
    expect(first).toMatchObject({ total: 25, page: 1, page_size: 20, pages: 2 });
    expect(first.items).toHaveLength(20);
    const second = (await h.call(owner, 'GET', '/calendars?page=2')).json();
    expect(second.items.map((c: { name: string }) => c.name)).toEqual([
      'Cal 21',
      'Cal 22',
      'Cal 23',
      'Cal 24',
      'Cal 25',
    ]);
    const beyond = (await h.call(owner, 'GET', '/calendars?page=9')).json();
    expect(beyond).toMatchObject({ items: [], total: 25, page: 9 });
    const max = (await h.call(owner, 'GET', '/calendars?page_size=100')).json();
    expect(max).toMatchObject({ page_size: 100, pages: 1 });
    expect(max.items).toHaveLength(25);
    const one = (await h.call(owner, 'GET', '/calendars?page_size=1&page=25')).json();
    expect(one).toMatchObject({ pages: 25 });
    expect(one.items.map((c: { name: string }) => c.name)).toEqual(['Cal 25']);
  });

  it('sorts by name (case-insensitive), created_at and updated_at in both orders', async () => {
    const owner = h.user();
    const names = ['banana', 'Apple', 'cherry'];
    const ids: Record<string, string> = {};
    for (const name of names) {
      h.clock.advance(60_000);
      ids[name] = (await h.createCalendar(owner, { name })).id;
    }
    h.clock.advance(60_000);
    await h.call(owner, 'PATCH', `/calendars/${ids.Apple}`, { description: 'touched last' });
    const order = async (query: string) =>
      (await h.call(owner, 'GET', `/calendars?${query}`)).json().items.map((c: { name: string }) => c.name);
    expect(await order('')).toEqual(['Apple', 'banana', 'cherry']);
    expect(await order('sort_by=name&sort_order=desc')).toEqual(['cherry', 'banana', 'Apple']);
    expect(await order('sort_by=created_at')).toEqual(['banana', 'Apple', 'cherry']);
    expect(await order('sort_by=created_at&sort_order=desc')).toEqual(['cherry', 'Apple', 'banana']);
    expect(await order('sort_by=updated_at&sort_order=desc')).toEqual(['Apple', 'cherry', 'banana']);
  });

  it('lists owned, shared and public calendars; include_shared=false keeps only owned ones', async () => {
    const owner = h.user();
    const friend = h.user(owner.tenantId);
    const own = await h.createCalendar(friend, { name: 'Own' });
    const shared = await h.createCalendar(owner, { name: 'Shared' });
    await h.share(owner, shared.id, { user_id: friend.userId, permission: 'edit' });
    const pub = await h.createCalendar(owner, { name: 'Public', visibility: 'public' });
    await h.createCalendar(owner, { name: 'Private' });
    const outsider = h.user();
    await h.createCalendar(outsider, { name: 'Elsewhere', visibility: 'public' });
    const all = (await h.call(friend, 'GET', '/calendars')).json();
    expect(all.items.map((c: { id: string; permission: string }) => [c.id, c.permission])).toEqual([
      [own.id, 'owner'],
      [pub.id, 'view'],
      [shared.id, 'edit'],
    ]);
    const owned = (await h.call(friend, 'GET', '/calendars?include_shared=false')).json();
    expect(owned.items.map((c: { id: string }) => c.id)).toEqual([own.id]);
    expect(owned.total).toBe(1);
  });

  it('partially updates only the given fields; edit may not change visibility, admin may', async () => {
    const owner = h.user();
    const editor = h.user(owner.tenantId);
    const admin = h.user(owner.tenantId);
    const cal = await h.createCalendar(owner, { name: 'Team', description: 'd', color: '#000000' });
    await h.share(owner, cal.id, { user_id: editor.userId, permission: 'edit' });
    await h.share(owner, cal.id, { user_id: admin.userId, permission: 'admin' });
    h.clock.advance(1_000);
    const editedAt = h.clock.now().toISOString();
    const res = await h.call(editor, 'PATCH', `/calendars/${cal.id}`, { name: 'Team B', description: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      name: 'Team B',
      description: null,
      color: '#000000',
      permission: 'edit',
      updated_at: editedAt,
    });
    const vis = await h.call(editor, 'PATCH', `/calendars/${cal.id}`, { visibility: 'public' });
    expect(vis.statusCode).toBe(403);
    const byAdmin = await h.call(admin, 'PATCH', `/calendars/${cal.id}`, { visibility: 'public' });
    expect(byAdmin.json()).toMatchObject({ visibility: 'public', permission: 'admin' });
    const stranger = h.user(owner.tenantId);
    expect((await h.call(stranger, 'GET', `/calendars/${cal.id}`)).json().permission).toBe('view');
  });

  it('soft-deletes a calendar and all its items; it stays listed only under is_active=false', async () => {
    const owner = h.user();
    const viewer = h.user(owner.tenantId);
    const cal = await h.createCalendar(owner, { name: 'Doomed' });
    const keep = await h.createCalendar(owner, { name: 'Kept' });
    await h.share(owner, cal.id, { user_id: viewer.userId, permission: 'view' });
    for (const id of [cal.id, keep.id]) {
      for (let i = 0; i < 3; i++) {
        const item = await h.call(owner, 'POST', `/calendars/${id}/items`, {
          title: `i${i}`,
          start_at: `2026-11-2${i}T10:00:00Z`,
          end_at: `2026-11-2${i}T11:00:00Z`,
        });
        expect(item.statusCode).toBe(201);
      }
    }
    h.clock.advance(5_000);
    const deletedAt = h.clock.now().toISOString();
    const del = await h.call(owner, 'DELETE', `/calendars/${cal.id}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    const rows = await sqlRows<{ calendar_id: string; deleted_at: Date | null }>(
      h.orm,
      'select calendar_id, deleted_at from calendar_items where calendar_id in (?, ?)',
      [cal.id, keep.id],
    );
    const deleted = rows.filter((r) => r.deleted_at !== null);
    expect(deleted).toHaveLength(3);
    expect(deleted.every((r) => r.calendar_id === cal.id)).toBe(true);
    expect(new Date(deleted[0]?.deleted_at ?? 0).toISOString()).toBe(deletedAt);

    const active = (await h.call(owner, 'GET', '/calendars')).json();
    expect(active.items.map((c: { id: string }) => c.id)).toEqual([keep.id]);
    const inactive = (await h.call(owner, 'GET', '/calendars?is_active=false')).json();
    expect(inactive.items.map((c: { id: string; is_active: boolean }) => [c.id, c.is_active])).toEqual([
      [cal.id, false],
    ]);
    expect((await h.call(owner, 'GET', '/calendars?is_active=null')).json().total).toBe(2);
    expect((await h.call(viewer, 'GET', '/calendars?is_active=false')).json().total).toBe(1);
    // Read-only after deletion: readable, but every write and the items are gone.
    expect((await h.call(owner, 'GET', `/calendars/${cal.id}`)).json().is_active).toBe(false);
    expect((await h.call(owner, 'PATCH', `/calendars/${cal.id}`, { name: 'Back' })).statusCode).toBe(404);
    expect((await h.call(owner, 'DELETE', `/calendars/${cal.id}`)).statusCode).toBe(404);
    const items = await h.call(owner, 'GET', `/calendars/${cal.id}/items?start_date=2026-11-01&end_date=2026-11-30`);
    expect(items.statusCode).toBe(404);
    const kept = await h.call(owner, 'GET', `/calendars/${keep.id}/items?start_date=2026-11-01&end_date=2026-11-30`);
    expect(kept.json().total).toBe(3);
  });
});
