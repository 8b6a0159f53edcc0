import { ownerOf } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DeliveryContext } from '../../domain/context.js';
import { listNotifications, markRead } from '../../domain/notifications.js';
import {
  notificationPage,
  notificationParams,
  notificationQuery,
  notificationRead,
  toNotification,
} from './schemas.js';

const tags = ['notifications'];

/** The bell feed: any authenticated user, own rows only, no permission code (ADR 041). */
export function notificationRoutes(ctx: DeliveryContext): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get(
      '/service/notifications',
      {
        schema: {
          operationId: 'listNotifications',
          summary: 'The bell feed, newest first, with the unread count',
          tags,
          querystring: notificationQuery,
          response: { 200: notificationPage },
        },
      },
      async (request) => {
        const { limit, offset, unread_only } = request.query;
        const page = await listNotifications(ctx.db, ownerOf(request), unread_only, { limit, offset });
        return {
          items: page.items.map(toNotification),
          total: page.total,
          limit,
          offset,
          unread_count: page.unreadCount,
        };
      },
    );

    r.patch(
      '/service/notifications/:notif_id/read',
      {
        schema: {
          operationId: 'markNotificationRead',
          summary: 'Mark a notification read',
          tags,
          params: notificationParams,
          response: { 200: notificationRead },
        },
      },
      async (request) => toNotification(await markRead(ctx.db, ownerOf(request), request.params.notif_id, ctx.clock)),
    );
  };
}
