import { hasPermission, type Permission } from '@routinely/platform';

export interface Tile {
  id: string;
  title: string;
  /** The canonical API path (under /api/v1) the tile opens: a GET the holder of `permission` may call. */
  path: string;
  permission: Permission;
  children: Tile[];
}

const API = '/api/v1/service';

const tile = (id: string, title: string, path: string, permission: Permission, children: Tile[] = []): Tile => ({
  id,
  title,
  path: `${API}${path}`,
  permission,
  children,
});

/** The contract's tile tree, every tile with the permission that opens it (ADR 027). */
const TILE_TREE: readonly Tile[] = [
  tile('tasks', 'Tasks', '/tasks', 'SERVICE_TASK_READ', [
    tile('import', 'Bulk import', '/tasks/bulk-import/jobs', 'SERVICE_TASK_BULK_IMPORT'),
  ]),
  tile('calendar', 'Calendar', '/calendar/events', 'SERVICE_TASK_READ'),
  tile('schedule', 'Scheduling', '/schedule/cost/me', 'SERVICE_SCHEDULE_RUN', [
    tile('usage', 'Model usage', '/llm/usage/today', 'SERVICE_SCHEDULE_RUN'),
  ]),
  tile('integrations', 'Calendar integrations', '/integrations', 'SERVICE_INTEGRATION_MANAGE'),
  tile('webhooks', 'Webhooks', '/webhooks', 'SERVICE_WEBHOOK_READ'),
  tile('reminders', 'Reminders', '/reminders/upcoming', 'SERVICE_TASK_READ'),
  tile('settings', 'Settings', '/settings/me', 'SERVICE_SETTINGS_MANAGE'),
  tile('admin', 'Administration', '/admin/health', 'SERVICE_ADMIN', [
    tile('quotas', 'Quotas', '/admin/quotas', 'SERVICE_QUOTA_OVERRIDE'),
    tile('tenant_settings', 'Tenant settings', '/admin/tenant/settings', 'SERVICE_ADMIN'),
    tile('health', 'Health', '/admin/health', 'SERVICE_ADMIN'),
  ]),
];

/**
 * The tiles the caller may open, by the same rule as the routes (SERVICE_ADMIN and SERVICE_SUPER_ADMIN are
 * catch-alls). A child shows only under its shown parent: the tree has no orphans.
 */
export function tilesFor(permissions: readonly string[], tree: readonly Tile[] = TILE_TREE): Tile[] {
  return tree
    .filter((t) => hasPermission(permissions, t.permission))
    .map((t) => ({ ...t, children: tilesFor(permissions, t.children) }));
}
