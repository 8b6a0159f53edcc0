import type { EntityManager } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { type Clock, notFound } from '@routinely/platform';
import { Notification, type NotificationRow } from '../db/entities.js';
import type { Page } from './delivery-log.js';

export async function listNotifications(em: EntityManager, owner: Owner, unreadOnly: boolean, page: Page) {
  const mine = { tenantId: owner.tenantId, userId: owner.userId };
  const [items, total] = await em.findAndCount(Notification, unreadOnly ? { ...mine, readAt: null } : mine, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: page.limit,
    offset: page.offset,
  });
  const unreadCount = unreadOnly ? total : await em.count(Notification, { ...mine, readAt: null });
  return { items, total, unreadCount };
}

/** Idempotent: reading an already-read notification keeps its first read_at. */
export async function markRead(em: EntityManager, owner: Owner, id: string, clock: Clock): Promise<NotificationRow> {
  const row = await em.findOne(Notification, { id, tenantId: owner.tenantId, userId: owner.userId });
  if (!row) throw notFound('Notification');
  row.readAt ??= clock.now();
  await em.flush();
  return row;
}
