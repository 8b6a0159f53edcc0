import { nameSchemas, pageOf, pageQuery, queryBool, timestampOut, uuidOut } from '@routinely/platform';
import { z } from 'zod';
import { iso } from '../../domain/context.js';
import type { Notification } from '../../domain/notifications.js';

export const notificationQuery = pageQuery.extend({ unread_only: queryBool(false) });
export const notificationParams = z.object({ notif_id: z.uuid() });

export const notificationRead = z.object({
  id: uuidOut(),
  kind: z.string(),
  title: z.string(),
  body: z.string(),
  data: z.record(z.string(), z.unknown()),
  read: z.boolean(),
  read_at: timestampOut().nullable(),
  created_at: timestampOut(),
});

export const notificationPage = pageOf(notificationRead).extend({ unread_count: z.number().int() });

export function toNotification(row: Notification): z.infer<typeof notificationRead> {
  return {
    id: row.id,
    kind: row.kind,
    title: row.title,
    body: row.body,
    data: row.data,
    read: row.read_at != null,
    read_at: iso(row.read_at),
    created_at: row.created_at.toISOString(),
  };
}

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  Notification: notificationRead,
  NotificationPage: notificationPage,
});
