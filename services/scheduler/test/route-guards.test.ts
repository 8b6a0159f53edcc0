import { type RouteGuardTable, runRouteGuards, type TestUser, tokenGuardTarget } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Harness, knowUser, ok, startHarness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const window = async (owner: TestUser) => {
  const res = await call(h, owner, 'POST', '/service/settings/no-go-windows', {
    kind: 'weekly',
    days: ['mon'],
    start: '12:00',
    end: '13:00',
  });
  return { window_id: (await ok(res, 201)).id };
};
const colleague = async (owner: TestUser) => ({
  user_id: (await knowUser(h, h.tokens.user({ tenantId: owner.tenantId }))).userId,
});

// Every route of the scheduler: a new route fails the first check until it is listed here.
const TABLE: RouteGuardTable<TestUser> = {
  'GET /service/settings/me': { permission: 'SERVICE_SETTINGS_MANAGE' },
  'PATCH /service/settings/me': {
    permission: 'SERVICE_SETTINGS_MANAGE',
    body: () => ({ reminder_offset_min: 15 }),
    invalid: { body: { timezone: 'Mars/Olympus_Mons' } },
  },
  'GET /service/settings/working-hours': { permission: 'SERVICE_SETTINGS_MANAGE' },
  'PUT /service/settings/working-hours': {
    permission: 'SERVICE_SETTINGS_MANAGE',
    body: () => ({ mon: [{ start: '08:00', end: '12:00' }] }),
    invalid: { body: { mon: [{ start: '12:00', end: '08:00' }] } },
  },
  'GET /service/settings/no-go-windows': { permission: 'SERVICE_SETTINGS_MANAGE' },
  'POST /service/settings/no-go-windows': {
    permission: 'SERVICE_SETTINGS_MANAGE',
    body: () => ({ kind: 'weekly', days: ['tue'], start: '12:00', end: '13:00' }),
    invalid: { body: { kind: 'once', start_at: '2026-12-01T10:00:00', end_at: '2026-12-01T11:00:00' } },
  },
  'DELETE /service/settings/no-go-windows/:window_id': {
    permission: 'SERVICE_SETTINGS_MANAGE',
    fixture: window,
    invalid: { params: { window_id: 'nope' } },
  },
  'GET /service/schedule/cost/me': { permission: 'SERVICE_SCHEDULE_RUN' },
  'GET /service/quota/me': { permission: 'SERVICE_SCHEDULE_RUN' },
  'GET /service/llm/usage/today': { permission: 'SERVICE_SCHEDULE_RUN' },
  'GET /service/llm/usage/monthly': {
    permission: 'SERVICE_SCHEDULE_RUN',
    query: () => 'month=2026-11',
    invalid: { query: 'month=2026-13' },
  },
  'GET /service/llm/providers': { permission: 'SERVICE_SCHEDULE_RUN' },
  'GET /service/admin/quotas': { permission: 'SERVICE_ADMIN', invalid: { query: 'limit=501' } },
  'GET /service/admin/quotas/:user_id': {
    permission: 'SERVICE_ADMIN',
    fixture: colleague,
    invalid: { params: { user_id: 'nope' } },
  },
  'PATCH /service/admin/quotas/:user_id': {
    permission: 'SERVICE_QUOTA_OVERRIDE',
    fixture: colleague,
    body: () => ({ soft_cap_usd: 6 }),
    invalid: { body: { soft_cap_usd: -1 } },
  },
  'GET /service/admin/tenant/settings': { permission: 'SERVICE_ADMIN' },
  'PATCH /service/admin/tenant/settings': {
    permission: 'SERVICE_ADMIN',
    body: () => ({ llm_provider_locked: false }),
    invalid: { body: { llm_provider_tenant_default: 'gemini' } },
  },
};

// The owner is a tenant administrator, so admin routes reach their validation; plain users are checked below.
runRouteGuards(
  'scheduler',
  () => {
    const target = tokenGuardTarget(h);
    return { ...target, owner: async () => h.tokens.user({ roles: ['admin'] }) };
  },
  TABLE,
);

describe('scheduler routes beyond the guard table', () => {
  const adminRoutes = Object.keys(TABLE).filter((key) => key.includes('/admin/'));

  it.each(adminRoutes)('%s: 403 for a plain user of the tenant', async (key) => {
    const admin = h.tokens.user({ roles: ['admin'] });
    const { user_id } = await colleague(admin);
    const plain = await knowUser(h, h.tokens.user({ tenantId: admin.tenantId }));
    const [method, path] = key.split(' ') as ['GET' | 'PATCH', string];
    const res = await call(h, plain, method, path.replace(':user_id', user_id), method === 'PATCH' ? {} : undefined);
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json().code).toBe('forbidden');
  });

  it("DELETE of a colleague's no-go window is 404, like a missing one", async () => {
    const owner = h.tokens.user();
    const { window_id } = await window(owner);
    const mate = h.tokens.user({ tenantId: owner.tenantId });
    const res = await call(h, mate, 'DELETE', `/service/settings/no-go-windows/${window_id}`);
    expect(res.statusCode).toBe(404);
    expect((await call(h, owner, 'GET', '/service/settings/no-go-windows')).json()).toHaveLength(1);
  });

  it('serves every route on both mounts and documents them in OpenAPI', async () => {
    const admin = h.tokens.user({ roles: ['admin'] });
    const auth = await h.tokens.auth(admin);
    const reads = Object.keys(TABLE).filter((key) => key.startsWith('GET ') && !key.includes(':'));
    for (const key of reads) {
      for (const mount of ['/api/v1', '/v1']) {
        const res = await h.app.inject({ method: 'GET', url: `${mount}${key.slice(4)}`, headers: auth });
        expect(res.statusCode, `${mount} ${key}: ${res.body}`).toBe(200);
      }
    }
    const doc = (await h.app.inject({ url: '/api/v1/openapi.json' })).json();
    const paths = Object.keys(doc.paths);
    for (const key of Object.keys(TABLE)) {
      const path = key.split(' ')[1]?.replace(/:([a-z_]+)/g, '{$1}');
      expect(paths).toContain(`/api/v1${path}`);
    }
  });
});
