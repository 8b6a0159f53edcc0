import type { Permission } from '@routinely/platform';
import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Harness, startHarness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

interface Tile {
  id: string;
  path: string;
  permission: string;
  children: Tile[];
}

/** The tree as `id(child,child)` strings, which reads like the contract's list. */
const shape = (tiles: Tile[]): string[] =>
  tiles.map((t) => (t.children.length ? `${t.id}(${shape(t.children).join(',')})` : t.id));

async function tilesOf(user: TestUser) {
  const res = await call(h, user, 'GET', '/service/dashboard/tiles');
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Tile[];
}

const withPermissions = (...permissions: Permission[]) => h.tokens.user({ roles: [], permissions });

describe('GET /dashboard/tiles', () => {
  it("gives a user role every tile but the administrators'", async () => {
    expect(shape(await tilesOf(h.tokens.user()))).toEqual([
      'tasks(import)',
      'calendar',
      'schedule(usage)',
      'integrations',
      'webhooks',
      'reminders',
      'settings',
    ]);
  });

  it('gives an administrator the whole tree, admin with quotas, tenant settings and health', async () => {
    expect(shape(await tilesOf(h.tokens.user({ roles: ['admin'] })))).toEqual([
      'tasks(import)',
      'calendar',
      'schedule(usage)',
      'integrations',
      'webhooks',
      'reminders',
      'settings',
      'admin(quotas,tenant_settings,health)',
    ]);
  });

  it('filters by each permission: SERVICE_TASK_READ alone opens tasks, calendar and reminders', async () => {
    expect(shape(await tilesOf(withPermissions('SERVICE_TASK_READ')))).toEqual(['tasks', 'calendar', 'reminders']);
    expect(shape(await tilesOf(withPermissions('SERVICE_TASK_READ', 'SERVICE_TASK_BULK_IMPORT')))).toEqual([
      'tasks(import)',
      'calendar',
      'reminders',
    ]);
    expect(shape(await tilesOf(withPermissions('SERVICE_WEBHOOK_READ', 'SERVICE_SCHEDULE_RUN')))).toEqual([
      'schedule(usage)',
      'webhooks',
    ]);
  });

  it('shows no child under a hidden parent, and an empty tree to a token without permissions', async () => {
    expect(await tilesOf(withPermissions('SERVICE_TASK_BULK_IMPORT', 'SERVICE_QUOTA_OVERRIDE'))).toEqual([]);
    expect(await tilesOf(withPermissions())).toEqual([]);
  });

  it('names each tile by the permission that shows it and the API path it opens', async () => {
    const [tasks] = await tilesOf(withPermissions('SERVICE_TASK_READ', 'SERVICE_TASK_BULK_IMPORT'));
    expect(tasks).toEqual({
      id: 'tasks',
      title: 'Tasks',
      path: '/api/v1/service/tasks',
      permission: 'SERVICE_TASK_READ',
      children: [
        {
          id: 'import',
          title: 'Bulk import',
          path: '/api/v1/service/tasks/bulk-import/jobs',
          permission: 'SERVICE_TASK_BULK_IMPORT',
          children: [],
        },
      ],
    });
  });

  it('answers 401 without a token', async () => {
    const res = await call(h, null, 'GET', '/service/dashboard/tiles');
    expect(res.statusCode).toBe(401);
  });
});
