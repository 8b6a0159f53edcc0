import { column, row, type Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { z } from 'zod';
import { CHANNELS } from '../domain/values.js';
import { countRow } from './counts-sql.js';
import type { DeadLetterRow } from './entities.js';

const deadLetterRow = row({
  id: column.uuid,
  tenantId: column.text,
  userId: column.text,
  deliveryId: column.uuid,
  reminderId: column.uuid,
  endpointId: column.uuid.nullable(),
  channel: z.enum(CHANNELS),
  reason: column.text,
  lastStatusCode: column.integer.nullable(),
  attempts: column.integer,
  createdAt: column.timestamp,
});

const takenRow = row({ delivery_id: column.uuid });

/**
 * Removes the owner's dead letter and says which delivery it held, or null when it is not (or no longer)
 * there. The delete takes the row lock, so of racing requeues exactly one gets the row: the others wait for
 * it to commit and then find nothing to delete.
 */
export async function takeDeadLetter(sql: Sql, owner: Owner, dlqId: string): Promise<string | null> {
  const taken = await sql.first(
    takenRow,
    'delete from dead_letters where id = ? and tenant_id = ? and user_id = ? returning delivery_id',
    [dlqId, owner.tenantId, owner.userId],
  );
  return taken?.delivery_id ?? null;
}

/** A delivery given up on: it waits in the owner's dead-letter queue for a requeue. */
export interface NewDeadLetter {
  id: string;
  tenant_id: string;
  user_id: string;
  delivery_id: string;
  reminder_id: string;
  endpoint_id: string | null;
  channel: string;
  reason: string;
  last_status_code: number | null;
  attempts: number;
  created_at: Date;
}

export async function insertDeadLetter(sql: Sql, r: NewDeadLetter): Promise<void> {
  await sql.run(
    `insert into dead_letters
       (id, tenant_id, user_id, delivery_id, reminder_id, endpoint_id, channel, reason, last_status_code, attempts,
        created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      r.id,
      r.tenant_id,
      r.user_id,
      r.delivery_id,
      r.reminder_id,
      r.endpoint_id,
      r.channel,
      r.reason,
      r.last_status_code,
      r.attempts,
      r.created_at,
    ],
  );
}

/** The size of the dead-letter queue, all tenants together (a metric). */
export async function countDeadLetters(sql: Sql): Promise<number> {
  const count = await sql.first(countRow, 'select count(*)::int as n from dead_letters');
  return count?.n ?? 0;
}

/** A page of the owner's dead letters, newest first, with how many there are in all. */
export async function ownerDeadLetters(
  sql: Sql,
  owner: Owner,
  page: { limit: number; offset: number },
): Promise<{ items: DeadLetterRow[]; total: number }> {
  const params = [owner.tenantId, owner.userId];
  const [rows, count] = await Promise.all([
    sql.rows(
      deadLetterRow,
      `select id, tenant_id as "tenantId", user_id as "userId", delivery_id as "deliveryId",
         reminder_id as "reminderId", endpoint_id as "endpointId", channel, reason,
         last_status_code as "lastStatusCode", attempts, created_at as "createdAt"
       from dead_letters where tenant_id = ? and user_id = ? order by created_at desc, id desc limit ? offset ?`,
      [...params, page.limit, page.offset],
    ),
    sql.first(countRow, 'select count(*)::int as n from dead_letters where tenant_id = ? and user_id = ?', params),
  ]);
  return { items: rows, total: count?.n ?? 0 };
}

/** Removes the owner's dead letters of a delivery (it is being delivered again). */
export async function deleteDeadLettersOf(sql: Sql, owner: Owner, deliveryId: string): Promise<void> {
  await sql.run('delete from dead_letters where delivery_id = ? and tenant_id = ? and user_id = ?', [
    deliveryId,
    owner.tenantId,
    owner.userId,
  ]);
}
