import { type RouteGuardTable, runRouteGuards, type TestUser, tokenGuardTarget } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTask, type RunHarness, startRunHarness } from './run-harness.js';
import { call, type Harness, knowUser, ok } from './scheduler-harness.js';

let runs: RunHarness;
let h: Harness;
beforeAll(async () => {
  runs = await startRunHarness();
  h = runs.scheduler;
});
afterAll(() => runs?.close());

const task = async (owner: TestUser) => ({ task_id: (await createTask(runs, owner, { title: 'guarded' })).id });
const dryRun = async (owner: TestUser) => {
  const { task_id } = await task(owner);
  const run = await ok(await call(h, owner, 'POST', '/service/schedule', { task_ids: [task_id], dry_run: true }));
  return { task_id, run_id: run.run_id, decision_id: run.decisions[0].id };
};
const scheduledRoot = async (owner: TestUser) => {
  const { task_id } = await task(owner);
  const res = await runs.task.call(owner, 'PATCH', `/service/tasks/${task_id}`, {
    chosen_slot_start: '2026-11-24T09:00:00Z',
    chosen_slot_end: '2026-11-24T10:00:00Z',
  });
  expect(res.statusCode, res.body).toBe(200);
  return { task_id };
};
const slot = { chosen_slot_start: '2026-11-24T11:00:00Z', chosen_slot_end: '2026-11-24T11:30:00Z' };

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
  // Capture from text is the scheduler's (its model path is under the spend quota); nothing is addressed: no 404.
  'POST /service/tasks/parse': {
    permission: 'SERVICE_TASK_CREATE',
    body: () => ({ text: 'call mum tomorrow 9am' }),
    invalid: { body: { text: '' } },
  },
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
  'POST /service/schedule': {
    permission: 'SERVICE_SCHEDULE_RUN',
    fixture: task,
    body: (ids) => ({ task_ids: [ids.task_id], dry_run: true }),
    bodyAddressesResource: true,
    invalid: { body: { task_ids: [] } },
  },
  'GET /service/schedule/runs/latest': { permission: 'SERVICE_SCHEDULE_RUN' },
  'GET /service/schedule/runs/:run_id': {
    permission: 'SERVICE_SCHEDULE_RUN',
    fixture: dryRun,
    invalid: { params: { run_id: 'nope' } },
  },
  'GET /service/schedule/decisions/:decision_id': {
    permission: 'SERVICE_SCHEDULE_RUN',
    fixture: dryRun,
    invalid: { params: { decision_id: 'nope' } },
  },
  'POST /service/schedule/decisions/:decision_id/override': {
    permission: 'SERVICE_SCHEDULE_RUN',
    fixture: dryRun,
    body: () => slot,
    invalid: { body: { chosen_slot_start: 'tomorrow', chosen_slot_end: slot.chosen_slot_end } },
  },
  'POST /service/schedule/override': {
    permission: 'SERVICE_SCHEDULE_RUN',
    fixture: dryRun,
    body: (ids) => ({ decision_id: ids.decision_id, ...slot }),
    bodyAddressesResource: true,
    invalid: { body: slot },
  },
  'POST /service/schedule/reflow': {
    permission: 'SERVICE_SCHEDULE_RUN',
    fixture: scheduledRoot,
    body: (ids) => ({ root_task_id: ids.task_id }),
    bodyAddressesResource: true,
    invalid: { body: { root_task_id: 'nope' } },
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

  it('GET /schedule/runs/latest is 404 for a user without runs', async () => {
    const res = await call(h, h.tokens.user(), 'GET', '/service/schedule/runs/latest');
    expect(res.statusCode, res.body).toBe(404);
  });

  it("a colleague's run and decision are 404, like missing ones", async () => {
    const owner = h.tokens.user();
    const { run_id, decision_id } = await dryRun(owner);
    const mate = h.tokens.user({ tenantId: owner.tenantId });
    expect((await call(h, mate, 'GET', `/service/schedule/runs/${run_id}`)).statusCode).toBe(404);
    expect((await call(h, mate, 'GET', `/service/schedule/decisions/${decision_id}`)).statusCode).toBe(404);
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
    await dryRun(admin); // so the latest run exists
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
