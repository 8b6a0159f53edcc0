import { type Principal, requirePrincipal } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Actor } from '../../adapters/dashboard-peers.js';
import type { AdminHealth } from '../../domain/dashboard/admin-health.js';
import type { DashboardSummaryReader } from '../../domain/dashboard/summary.js';
import { tilesFor } from '../../domain/dashboard/tiles.js';
import { ADMIN_HEALTH_DESCRIPTION, adminHealth, dashboardSummary, tileList } from './schemas.js';

const actorOf = (p: Principal): Actor => ({ tenantId: p.tenantId, userId: p.userId, permissions: p.permissions });

export function dashboardRoutes(summary: DashboardSummaryReader, health: AdminHealth): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get(
      '/service/dashboard/summary',
      {
        config: { permission: 'SERVICE_TASK_READ' },
        schema: {
          tags: ['dashboard'],
          operationId: 'getDashboardSummary',
          summary: "The caller's tasks due and overdue, reminders, integrations, model spend and unread notifications",
          response: { 200: dashboardSummary },
        },
      },
      async (request) => summary.summary(actorOf(requirePrincipal(request))),
    );

    r.get(
      '/service/dashboard/tiles',
      {
        schema: {
          tags: ['dashboard'],
          operationId: 'listDashboardTiles',
          summary: "The contract's tile tree filtered by the caller's permissions",
          description:
            'Any signed-in user. A tile shows when the caller holds its permission (SERVICE_ADMIN and ' +
            'SERVICE_SUPER_ADMIN open every tile); a child shows only under its shown parent (ADR 027).',
          response: { 200: tileList },
        },
      },
      async (request) => tilesFor(requirePrincipal(request).permissions),
    );

    r.get(
      '/service/admin/health',
      {
        config: { permission: 'SERVICE_ADMIN' },
        schema: {
          tags: ['admin'],
          operationId: 'getAdminHealth',
          summary: 'Status of database, cache, model registry, integrations, reminder worker and calendar worker',
          description: ADMIN_HEALTH_DESCRIPTION,
          response: { 200: adminHealth },
        },
      },
      async (request) => health.check(actorOf(requirePrincipal(request))),
    );
  };
}
