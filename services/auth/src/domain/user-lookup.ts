import type { EntityManager } from '@routinely/db';
import { User } from '../db/entities.js';
import { normaliseEmail } from './accounts.js';

export type UserLookupKey = { by: 'id'; value: string } | { by: 'email'; value: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A user of one tenant by id or email; an id that is no UUID finds nobody (PostgreSQL would reject it). */
export async function findTenantUser(em: EntityManager, tenantId: string, key: UserLookupKey) {
  if (key.by === 'email') return em.findOne(User, { email: normaliseEmail(key.value), tenantId });
  return UUID.test(key.value) ? em.findOne(User, { id: key.value.toLowerCase(), tenantId }) : null;
}
