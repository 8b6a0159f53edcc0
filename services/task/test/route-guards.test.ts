import { PERMISSIONS, type Permission } from '@routinely/platform';
import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTask, type Harness, startHarness } from './harness.js';

let h: Harness;
let owner: TestUser;
// Placeholders name the cases at collection time; beforeAll fills in real ids.
let ids = { task: '{task_id}', other: '{task_id}', dep: '{dep_id}', job: '{job_id}' };

beforeAll(async () => {
  h = await startHarness();
  owner = h.tokens.user();
  const task = await createTask(h, owner, { title: 'owned' });
  const other = await createTask(h, owner, { title: 'other' });
  const dep = (
    await call(h, owner, 'POST', '/service/tasks/dependencies', { task_id: task.id, depends_on_id: other.id })
  ).json();
  const job = (await call(h, owner, 'POST', '/service/tasks/bulk-import/jobs', { rows: [{ title: 'j' }] })).json();
  ids = { task: task.id, other: other.id, dep: dep.id, job: job.job_id };
});
afterAll(() => h?.close());

interface RouteCase {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: () => string;
  permission: Permission;
  body?: () => unknown;
  /** A request the schema rejects (422). */
  invalid: { path?: () => string; body?: unknown };
  /** False for routes that create without addressing an owned resource (no 404 case). */
  addressesResource?: boolean;
}

const ROUTES: RouteCase[] = [
  {
    method: 'POST',
    path: () => '/service/tasks',
    permission: 'SERVICE_TASK_CREATE',
    body: () => ({ title: 't', parent_task_id: ids.task }),
    invalid: { body: { title: '' } },
  },
  {
    method: 'GET',
    path: () => '/service/tasks',
    permission: 'SERVICE_TASK_READ',
    invalid: { path: () => '/service/tasks?limit=9999' },
    addressesResource: false,
  },
  {
    method: 'GET',
    path: () => `/service/tasks/${ids.task}`,
    permission: 'SERVICE_TASK_READ',
    invalid: { path: () => '/service/tasks/not-a-uuid' },
  },
  {
    method: 'GET',
    path: () => `/service/tasks/${ids.task}/tree`,
    permission: 'SERVICE_TASK_READ',
    invalid: { path: () => '/service/tasks/nope/tree' },
  },
  {
    method: 'GET',
    path: () => `/service/tasks/${ids.task}/dependencies`,
    permission: 'SERVICE_TASK_READ',
    invalid: { path: () => '/service/tasks/nope/dependencies' },
  },
  {
    method: 'PATCH',
    path: () => `/service/tasks/${ids.task}`,
    permission: 'SERVICE_TASK_UPDATE',
    body: () => ({ priority: 2 }),
    invalid: { body: { priority: 0 } },
  },
  {
    method: 'DELETE',
    path: () => `/service/tasks/${ids.other}`,
    permission: 'SERVICE_TASK_DELETE',
    invalid: { path: () => '/service/tasks/nope' },
  },
  {
    method: 'POST',
    path: () => `/service/tasks/${ids.task}/move`,
    permission: 'SERVICE_TASK_UPDATE',
    body: () => ({ parent_task_id: null }),
    invalid: { body: { parent_task_id: 'x' } },
  },
  {
    method: 'POST',
    path: () => `/service/tasks/${ids.task}/reorder`,
    permission: 'SERVICE_TASK_UPDATE',
    body: () => ({ sort_order: 0 }),
    invalid: { body: { sort_order: -1 } },
  },
  {
    method: 'POST',
    path: () => '/service/tasks/dependencies',
    permission: 'SERVICE_TASK_UPDATE',
    body: () => ({ task_id: ids.other, depends_on_id: ids.task }),
    invalid: { body: { task_id: 'x', depends_on_id: 'y' } },
  },
  {
    method: 'DELETE',
    path: () => `/service/tasks/dependencies/${ids.dep}`,
    permission: 'SERVICE_TASK_UPDATE',
    invalid: { path: () => '/service/tasks/dependencies/nope' },
  },
  {
    method: 'POST',
    path: () => '/service/tasks/bulk-import',
    permission: 'SERVICE_TASK_BULK_IMPORT',
    body: () => ({ rows: [{ title: 'x', parent_task_id: ids.task }] }),
    invalid: { body: { rows: 'nope' } },
    addressesResource: false,
  },
  {
    method: 'POST',
    path: () => '/service/tasks/bulk-import/jobs',
    permission: 'SERVICE_TASK_BULK_IMPORT',
    body: () => ({ rows: [{ title: 'x' }] }),
    invalid: { body: { rows: 1 } },
    addressesResource: false,
  },
  {
    method: 'GET',
    path: () => `/service/tasks/bulk-import/jobs/${ids.job}`,
    permission: 'SERVICE_TASK_BULK_IMPORT',
    invalid: { path: () => '/service/tasks/bulk-import/jobs/nope' },
  },
  {
    method: 'POST',
    path: () => `/service/tasks/bulk-import/jobs/${ids.job}/commit`,
    permission: 'SERVICE_TASK_BULK_IMPORT',
    body: () => ({}),
    invalid: { body: { auto_schedule: 'yes' } },
  },
  {
    method: 'DELETE',
    path: () => `/service/tasks/bulk-import/jobs/${ids.job}`,
    permission: 'SERVICE_TASK_BULK_IMPORT',
    invalid: { path: () => '/service/tasks/bulk-import/jobs/nope' },
  },
  {
    method: 'GET',
    path: () => '/service/routine-tasks/tree',
    permission: 'SERVICE_TASK_READ',
    invalid: {},
    addressesResource: false,
  },
  {
    method: 'PATCH',
    path: () => `/service/routine-tasks/${ids.task}/parent`,
    permission: 'SERVICE_TASK_UPDATE',
    body: () => ({ parent_task_id: null }),
    invalid: { body: {} },
  },
];

const label = (r: RouteCase) => `${r.method} ${r.path()}`;

describe('every route', () => {
  it.each(ROUTES.map((r) => [label(r), r] as const))(
    '%s: 401 without a token, 403 without its permission',
    async (_, route) => {
      const noToken = await call(h, null, route.method, route.path(), route.body?.());
      expect(noToken.statusCode).toBe(401);
      expect(noToken.headers['www-authenticate']).toBe('Bearer');
      const others = PERMISSIONS.filter(
        (p) => p !== route.permission && p !== 'SERVICE_ADMIN' && p !== 'SERVICE_SUPER_ADMIN',
      );
      const lacking = h.tokens.user({ tenantId: owner.tenantId, permissions: others });
      const forbidden = await call(h, lacking, route.method, route.path(), route.body?.());
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json().code).toBe('forbidden');
    },
  );

  it.each(ROUTES.filter((r) => r.addressesResource !== false).map((r) => [label(r), r] as const))(
    "%s: 404 for another tenant's or user's resource",
    async (_, route) => {
      for (const stranger of [h.tokens.user({ tenantId: owner.tenantId }), h.tokens.user()]) {
        const res = await call(h, stranger, route.method, route.path(), route.body?.());
        expect(res.statusCode).toBe(404);
        expect(res.json().code).toBe('not_found');
      }
    },
  );

  it.each(ROUTES.filter((r) => r.invalid.path || r.invalid.body !== undefined).map((r) => [label(r), r] as const))(
    '%s: 422 for invalid input',
    async (_, route) => {
      const res = await call(
        h,
        owner,
        route.method,
        (route.invalid.path ?? route.path)(),
        route.invalid.body ?? route.body?.(),
      );
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ code: 'validation_failed', errors: expect.any(Array) });
    },
  );

  it("POST /service/tasks/bulk-import: another user's parent is a row error, like a missing one", async () => {
    const stranger = h.tokens.user({ tenantId: owner.tenantId });
    const res = await call(h, stranger, 'POST', '/service/tasks/bulk-import', {
      rows: [{ title: 'x', parent_task_id: ids.task }],
    });
    expect(res.json()).toMatchObject({
      committed: false,
      errors: [{ row: 1, loc: ['parent_task_id'], msg: 'parent task not found' }],
    });
  });

  it('lets SERVICE_ADMIN in as a catch-all and documents every route once in OpenAPI', async () => {
    const admin = h.tokens.user({ permissions: ['SERVICE_ADMIN'] });
    expect((await call(h, admin, 'GET', '/service/tasks')).statusCode).toBe(200);
    const doc = (await h.app.inject({ url: '/api/v1/openapi.json' })).json();
    const paths = Object.keys(doc.paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/api/v1/service/tasks/{task_id}/tree',
        '/api/v1/service/tasks/bulk-import/jobs/{job_id}/commit',
        '/api/v1/service/routine-tasks/tree',
      ]),
    );
    expect(paths.some((p) => p.startsWith('/v1/'))).toBe(false);
  });
});
