import type { Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { type Clock, notFound } from '@routinely/platform';
import {
  countNotifications,
  markNotificationRead,
  type NotificationRecord,
  notificationPage,
} from '../db/notifications-sql.js';
import type { Page } from './delivery-log.js';

export type Notification = NotificationRecord;

export async function listNotifications(db: Sql, owner: Owner, unreadOnly: boolean, page: Page) {
  const items = await notificationPage(db, owner, unreadOnly, page);
  const counts = await countNotifications(db, owner);
  return { items, total: unreadOnly ? counts.unread : counts.total, unreadCount: counts.unread };
}

/** Idempotent: reading an already-read notification keeps its first read_at. */
export async function markRead(db: Sql, owner: Owner, id: string, clock: Clock): Promise<Notification> {
  const row = await markNotificationRead(db, owner, id, clock.now());
  if (!row) throw notFound('Notification');
  return row;
}
