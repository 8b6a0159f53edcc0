import type { Sql } from '@routinely/db';
import { rememberContact } from '../db/contacts-sql.js';

/**
 * The address an auth event carries for a user: authoritative, so it overwrites one that a caller's token
 * filled in (see `rememberContact`).
 */
export function recordAuthContact(sql: Sql, user: { tenant_id: string; id: string; email: string }, now: Date) {
  return rememberContact(sql, { tenantId: user.tenant_id, userId: user.id, email: user.email }, now);
}
