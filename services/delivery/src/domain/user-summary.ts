import type { Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { countNotifications } from '../db/notifications-sql.js';
import { countScheduledReminders } from '../db/reminders-sql.js';

/** The dashboard's figures of one user that delivery owns (ADR 025). */
export async function userSummary(db: Sql, owner: Owner, window: { start: Date; end: Date }) {
  const [remindersScheduled, notifications] = await Promise.all([
    countScheduledReminders(db, owner, window),
    countNotifications(db, owner),
  ]);
  return { remindersScheduled, notificationsUnread: notifications.unread };
}
