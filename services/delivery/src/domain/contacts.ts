import type { EntityManager } from '@routinely/db';

/** Upserts where a user's reminders are emailed. */
export async function rememberContact(
  em: EntityManager,
  contact: { tenantId: string; userId: string; email: string },
  now: Date,
): Promise<void> {
  if (!contact.email) return;
  await em.getConnection().execute(
    `insert into user_contacts (tenant_id, user_id, email, updated_at) values (?, ?, ?, ?)
     on conflict (tenant_id, user_id) do update set email = excluded.email, updated_at = excluded.updated_at`,
    [contact.tenantId, contact.userId, contact.email, now],
    'run',
    em.getTransactionContext(),
  );
}
