import type { Sql } from '@routinely/db';

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
  await sql.rows(
    `insert into notifications (id, tenant_id, user_id, kind, title, body, data, delivery_id, read_at, created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, null, ?) on conflict do nothing`,
    [n.id, n.tenant_id, n.user_id, n.kind, n.title, n.body, JSON.stringify(n.data), n.delivery_id, n.created_at],
  );
}
