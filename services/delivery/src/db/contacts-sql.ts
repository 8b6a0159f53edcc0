import type { Sql } from '@routinely/db';

/**
 * Records where a user's reminders are emailed. Auth events are authoritative and overwrite; the address
 * seen in a caller's token only fills a gap (`ifMissing`), so an older token never undoes a newer event.
 */
export async function rememberContact(
  sql: Sql,
  contact: { tenantId: string; userId: string; email: string },
  now: Date,
  options: { ifMissing?: boolean } = {},
): Promise<void> {
  if (!contact.email) return;
  const onConflict = options.ifMissing
    ? 'do nothing'
    : 'do update set email = excluded.email, updated_at = excluded.updated_at';
  await sql.run(
    `insert into user_contacts (tenant_id, user_id, email, updated_at) values (?, ?, ?, ?)
     on conflict (tenant_id, user_id) ${onConflict}`,
    [contact.tenantId, contact.userId, contact.email, now],
  );
}
