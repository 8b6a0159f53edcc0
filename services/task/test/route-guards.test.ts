import { type RouteGuardTable, runRouteGuards, type TestUser, tokenGuardTarget } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduledTask } from './calendar-helpers.js';
import { call, createTask, type Harness, startHarness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const task = async (owner: TestUser) => ({ task_id: (await createTask(h, owner, { title: 'owned' })).id });
const twoTasks = async (owner: TestUser) => ({
  task_id: (await createTask(h, owner, { title: 'owned' })).id,
  other_id: (await createTask(h, owner, { title: 'other' })).id,
});
const dependency = async (owner: TestUser) => {
  const ids = await twoTasks(owner);
  const res = await call(h, owner, 'POST', '/service/tasks/dependencies', {
    task_id: ids.task_id,
    depends_on_id: ids.other_id,
  });
  expect(res.statusCode, res.body).toBe(201);
  return { ...ids, dep_id: res.json().id };
};
const job = async (owner: TestUser) => {
  const res = await call(h, owner, 'POST', '/service/tasks/bulk-import/jobs', { rows: [{ title: 'j' }] });
  expect(res.statusCode, res.body).toBe(202);
  return { job_id: res.json().job_id };
};
const routine = async (owner: TestUser) => ({
  task_id: (await createTask(h, owner, { title: 'daily', recurrence: { rule: 'FREQ=DAILY', horizon_days: 2 } })).id,
});
const calendarEvent = async (owner: TestUser) => ({
  event_id: (await scheduledTask(h, owner, 'on the calendar', '2026-11-24T09:00:00Z', '2026-11-24T10:00:00Z')).id,
});
const eventInvalid = { params: { event_id: 'not-a-uuid' } };

// Every route of the task service: a new route fails the first check until it is listed here.
const TABLE: RouteGuardTable<TestUser> = {
  'GET /service/dashboard/summary': { permission: 'SERVICE_TASK_READ' },
  'GET /service/dashboard/tiles': {},
  'GET /service/admin/health': { permission: 'SERVICE_ADMIN' },
  'POST /service/tasks': {
    permission: 'SERVICE_TASK_CREATE',
    fixture: task,
    body: (ids) => ({ title: 't', parent_task_id: ids.task_id }),
    bodyAddressesResource: true,
    invalid: { body: { title: '' } },
  },
  'GET /service/tasks': { permission: 'SERVICE_TASK_READ', invalid: { query: 'limit=9999' } },
  'GET /service/tasks/:task_id': {
    permission: 'SERVICE_TASK_READ',
    fixture: task,
    invalid: { params: { task_id: 'not-a-uuid' } },
  },
  'GET /service/tasks/:task_id/tree': {
    permission: 'SERVICE_TASK_READ',
    fixture: task,
    invalid: { params: { task_id: 'nope' } },
  },
  'GET /service/tasks/:task_id/dependencies': {
    permission: 'SERVICE_TASK_READ',
    fixture: task,
    invalid: { params: { task_id: 'nope' } },
  },
  'PATCH /service/tasks/:task_id': {
    permission: 'SERVICE_TASK_UPDATE',
    fixture: task,
    body: () => ({ priority: 2 }),
    invalid: { body: { priority: 0 } },
  },
  'DELETE /service/tasks/:task_id': {
    permission: 'SERVICE_TASK_DELETE',
    fixture: task,
    invalid: { params: { task_id: 'nope' } },
  },
  'POST /service/tasks/:task_id/move': {
    permission: 'SERVICE_TASK_UPDATE',
    fixture: task,
    body: () => ({ parent_task_id: null }),
    invalid: { body: { parent_task_id: 'x' } },
  },
  'POST /service/tasks/:task_id/reorder': {
    permission: 'SERVICE_TASK_UPDATE',
    fixture: task,
    body: () => ({ sort_order: 0 }),
    invalid: { body: { sort_order: -1 } },
  },
  'POST /service/tasks/dependencies': {
    permission: 'SERVICE_TASK_UPDATE',
    fixture: twoTasks,
    body: (ids) => ({ task_id: ids.other_id, depends_on_id: ids.task_id }),
    bodyAddressesResource: true,
    invalid: { body: { task_id: 'x', depends_on_id: 'y' } },
  },
  'DELETE /service/tasks/dependencies/:dep_id': {
    permission: 'SERVICE_TASK_UPDATE',
    fixture: dependency,
    invalid: { params: { dep_id: 'nope' } },
  },
  // Another tenant's parent in an import is a row error like a missing one (checked below), not a 404.
  'POST /service/tasks/bulk-import': {
    permission: 'SERVICE_TASK_BULK_IMPORT',
    body: () => ({ rows: [{ title: 'x' }] }),
    invalid: { body: { rows: 'nope' } },
  },
  'POST /service/tasks/bulk-import/jobs': {
    permission: 'SERVICE_TASK_BULK_IMPORT',
    body: () => ({ rows: [{ title: 'x' }] }),
    invalid: { body: { rows: 1 } },
  },
  'GET /service/tasks/bulk-import/jobs/:job_id': {
    permission: 'SERVICE_TASK_BULK_IMPORT',
    fixture: job,
    invalid: { params: { job_id: 'nope' } },
  },
  'POST /service/tasks/bulk-import/jobs/:job_id/commit': {
    permission: 'SERVICE_TASK_BULK_IMPORT',
    fixture: job,
    body: () => ({}),
    invalid: { body: { auto_schedule: 'yes' } },
  },
  'DELETE /service/tasks/bulk-import/jobs/:job_id': {
    permission: 'SERVICE_TASK_BULK_IMPORT',
    fixture: job,
    invalid: { params: { job_id: 'nope' } },
  },
  'GET /service/tasks/:task_id/occurrences': {
    permission: 'SERVICE_TASK_READ',
    fixture: routine,
    invalid: { query: 'from=2026-01-01&to=2027-06-01' },
  },
  'POST /service/calendar/feed': { permission: 'SERVICE_TASK_READ' },
  'DELETE /service/calendar/feed': { permission: 'SERVICE_TASK_READ' },
  'GET /service/calendar/feed/:token.ics': {
    fixture: async (owner) => {
      const res = await call(h, owner, 'POST', '/service/calendar/feed');
      return {
        token: String(res.json().url)
          .split('/')
          .at(-1)
          ?.replace(/\.ics$/, '') as string,
      };
    },
    auth: { mode: 'none', reason: 'polled by calendar apps: the secret token in the URL is the credential' },
    // Any text is a token (an unknown one is 404); a NUL is refused before the route, as everywhere.
    invalid: { params: { token: '\u0000' } },
  },
  'GET /service/routine-tasks/tree': { permission: 'SERVICE_TASK_READ', invalid: { query: 'limit=0' } },
  'GET /service/calendar/events': { permission: 'SERVICE_TASK_READ', invalid: { query: 'view=year' } },
  'GET /service/calendar/events/:event_id': {
    permission: 'SERVICE_TASK_READ',
    fixture: calendarEvent,
    invalid: eventInvalid,
  },
  'POST /service/calendar/events/:event_id/done': {
    permission: 'SERVICE_TASK_UPDATE',
    fixture: calendarEvent,
    invalid: eventInvalid,
  },
  'POST /service/calendar/events/:event_id/skip': {
    permission: 'SERVICE_TASK_UPDATE',
    fixture: calendarEvent,
    invalid: eventInvalid,
  },
  'DELETE /service/calendar/events/:event_id': {
    permission: 'SERVICE_TASK_UPDATE',
    fixture: calendarEvent,
    invalid: eventInvalid,
  },
  'GET /service/calendar/free-busy': {
    permission: 'SERVICE_TASK_READ',
    query: () => 'from=2026-11-24T00:00:00Z&to=2026-11-25T00:00:00Z',
    invalid: { query: 'from=2026-11-24T00:00:00Z' },
  },
  'PATCH /service/routine-tasks/:task_id/parent': {
    permission: 'SERVICE_TASK_UPDATE',
    fixture: task,
    body: () => ({ parent_task_id: null }),
    invalid: { body: {} },
  },
};

runRouteGuards('task', () => tokenGuardTarget(h), TABLE);

describe('task ownership beyond the tenant', () => {
  // Tasks belong to one user: a colleague in the same tenant gets the same 404 as a stranger.
  const addressed = Object.entries(TABLE).filter(
    ([key, entry]) => (key.includes(':') && entry.auth?.mode !== 'none') || entry.bodyAddressesResource,
  );
  it.each(addressed)("%s: 404 for another user's task in the same tenant", async (key, entry) => {
    const owner = h.tokens.user();
    const ids = (await entry.fixture?.(owner)) ?? {};
    const [method, path] = key.split(' ') as ['GET', string];
    const colleague = h.tokens.user({ tenantId: owner.tenantId });
    const url = path.replace(/:([a-z_]+)/g, (_, name: string) => ids[name] ?? name);
    const body = entry.body?.(ids);
    const res = await call(h, colleague, method, url, body);
    expect(res.statusCode, res.body).toBe(404);
    expect(res.json().code).toBe('not_found');
  });

  it("POST /service/tasks/bulk-import: another user's parent is a row error, like a missing one", async () => {
    const owner = h.tokens.user();
    const { task_id } = await task(owner);
    for (const stranger of [h.tokens.user({ tenantId: owner.tenantId }), h.tokens.user()]) {
      const res = await call(h, stranger, 'POST', '/service/tasks/bulk-import', {
        rows: [{ title: 'x', parent_task_id: task_id }],
      });
      expect(res.json()).toMatchObject({
        committed: false,
        errors: [{ row: 1, loc: ['parent_task_id'], msg: 'parent task not found' }],
      });
    }
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
        '/api/v1/service/calendar/events/{event_id}/done',
        '/api/v1/service/calendar/free-busy',
        '/api/v1/service/dashboard/summary',
        '/api/v1/service/dashboard/tiles',
        '/api/v1/service/admin/health',
      ]),
    );
    expect(paths.some((p) => p.startsWith('/v1/'))).toBe(false);
    expect(doc.paths['/api/v1/service/dashboard/summary'].get.operationId).toBe('getDashboardSummary');
    expect(doc.paths['/api/v1/service/dashboard/tiles'].get.operationId).toBe('listDashboardTiles');
    expect(doc.paths['/api/v1/service/admin/health'].get).toMatchObject({
      operationId: 'getAdminHealth',
      description: expect.stringMatching(/Overall: `down` when the database is down/),
    });
  });
});
