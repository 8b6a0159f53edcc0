import type { Sql } from '@routinely/db';
import { findUser, findUserByEmail, type UserRow } from '../db/users-sql.js';
import { normaliseEmail } from './accounts.js';

export type UserLookupKey = { by: 'id'; value: string } | { by: 'email'; value: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A user of one tenant by id or email; an id that is no UUID finds nobody (PostgreSQL would reject it). */
export async function findTenantUser(db: Sql, tenantId: string, key: UserLookupKey): Promise<UserRow | undefined> {
  if (key.by === 'email') {
    const user = await findUserByEmail(db, normaliseEmail(key.value));
    return user?.tenantId === tenantId ? user : undefined;
  }
  return UUID.test(key.value) ? findUser(db, tenantId, key.value.toLowerCase()) : undefined;
}
