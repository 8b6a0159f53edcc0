import type { EntityManager } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { Notification, Reminder } from '../db/entities.js';

/** The dashboard's figures of one user that delivery owns (ADR 025). */
export async function userSummary(em: EntityManager, owner: Owner, window: { start: Date; end: Date }) {
  const mine = { tenantId: owner.tenantId, userId: owner.userId };
  const [remindersScheduled, notificationsUnread] = await Promise.all([
    em.count(Reminder, { ...mine, status: 'scheduled', remindAt: { $gte: window.start, $lt: window.end } }),
    em.count(Notification, { ...mine, readAt: null }),
  ]);
  return { remindersScheduled, notificationsUnread };
}
