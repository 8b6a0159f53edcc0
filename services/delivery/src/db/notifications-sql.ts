import { column, type Row, row, type Sql } from '@routinely/db';
import { z } from 'zod';

/** A bell notification about to be written. */
export interface NewNotification {
  id: string;
  tenant_id: string;
  user_id: string;
  kind: string;
  title: string;
  body: string;
  data: Record<string, unknown>;
  /** The in-app delivery that created it (unique), or null for notices of other events. */
  delivery_id: string | null;
  created_at: Date;
}

/**
 * Writes a notification once: a redelivered event (same id) or a retried in-app delivery (same delivery_id)
 * finds its notification already there and adds nothing.
 */
export async function insertNotification(sql: Sql, n: NewNotification): Promise<void> {
  await sql.run(
    `insert into notifications (id, tenant_id, user_id, kind, title, body, data, delivery_id, read_at, created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, null, ?) on conflict do nothing`,
    [n.id, n.tenant_id, n.user_id, n.kind, n.title, n.body, JSON.stringify(n.data), n.delivery_id, n.created_at],
  );
}

/** A notification as the bell feed shows it. */
const notificationRow = row({
  id: column.uuid,
  kind: column.text,
  title: column.text,
  body: column.text,
  data: column.json(z.record(z.string(), z.unknown())),
  read_at: column.timestamp.nullable(),
  created_at: column.timestamp,
});
export type NotificationRecord = Row<typeof notificationRow>;

const countsRow = row({ total: column.integer, unread: column.integer });

const COLUMNS = 'id, kind, title, body, data, read_at, created_at';

/** One page of the owner's notifications, newest first. */
export async function notificationPage(
  sql: Sql,
  owner: { tenantId: string; userId: string },
  unreadOnly: boolean,
  page: { limit: number; offset: number },
): Promise<NotificationRecord[]> {
  return sql.rows(
    notificationRow,
    `select ${COLUMNS} from notifications
     where tenant_id = ? and user_id = ? ${unreadOnly ? 'and read_at is null' : ''}
     order by created_at desc, id desc limit ? offset ?`,
    [owner.tenantId, owner.userId, page.limit, page.offset],
  );
}

/** How many notifications the owner has, and how many of them are unread. */
export async function countNotifications(
  sql: Sql,
  owner: { tenantId: string; userId: string },
): Promise<{ total: number; unread: number }> {
  const counts = await sql.first(
    countsRow,
    `select count(*)::int as total, (count(*) filter (where read_at is null))::int as unread
     from notifications where tenant_id = ? and user_id = ?`,
    [owner.tenantId, owner.userId],
  );
  return counts ?? { total: 0, unread: 0 };
}

/** Marks the owner's notification read, keeping the first read_at; undefined when it is not the owner's. */
export async function markNotificationRead(
  sql: Sql,
  owner: { tenantId: string; userId: string },
  id: string,
  now: Date,
): Promise<NotificationRecord | undefined> {
  return sql.first(
    notificationRow,
    `update notifications set read_at = coalesce(read_at, ?)
     where id = ? and tenant_id = ? and user_id = ? returning ${COLUMNS}`,
    [now, id, owner.tenantId, owner.userId],
  );
}
