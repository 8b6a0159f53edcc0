import { column, row, type Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import { countRow } from './counts-sql.js';
import type { DeliveryAttemptRow } from './entities.js';

/** One recorded try (ADR 045); `delivery_id` is null for a test send. */
export interface AttemptRecord {
  tenant_id: string;
  user_id: string;
  delivery_id: string | null;
  endpoint_id: string | null;
  event: string;
  event_id: string;
  attempt: number;
  at: Date;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
}

/** Writes a try's row; callers pass the transaction that records the try's outcome. */
export async function insertAttempt(sql: Sql, r: AttemptRecord): Promise<void> {
  await sql.run(
    `insert into delivery_attempts
       (id, tenant_id, user_id, delivery_id, endpoint_id, event, event_id, attempt, at, status_code, error, latency_ms)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      uuidv7(),
      r.tenant_id,
      r.user_id,
      r.delivery_id,
      r.endpoint_id,
      r.event,
      r.event_id,
      r.attempt,
      r.at,
      r.status_code,
      r.error,
      r.latency_ms,
    ],
  );
}

const ATTEMPT = `id, tenant_id as "tenantId", user_id as "userId", delivery_id as "deliveryId",
  endpoint_id as "endpointId", event, event_id as "eventId", attempt, at, status_code as "statusCode", error,
  latency_ms as "latencyMs"`;

const attemptRow = row({
  id: column.uuid,
  tenantId: column.text,
  userId: column.text,
  deliveryId: column.uuid.nullable(),
  endpointId: column.uuid.nullable(),
  event: column.text,
  eventId: column.uuid,
  attempt: column.integer,
  at: column.timestamp,
  statusCode: column.integer.nullable(),
  error: column.text.nullable(),
  latencyMs: column.integer,
});

/** Every recorded try of one delivery of the owner, oldest first. */
export async function deliveryAttempts(sql: Sql, owner: Owner, deliveryId: string): Promise<DeliveryAttemptRow[]> {
  return sql.rows(
    attemptRow,
    `select ${ATTEMPT} from delivery_attempts where delivery_id = ? and tenant_id = ? and user_id = ?
     order by at, id`,
    [deliveryId, owner.tenantId, owner.userId],
  );
}

/** A page of the tries made to one endpoint of the owner (deliveries and test sends), newest first. */
export async function endpointAttempts(
  sql: Sql,
  owner: Owner,
  endpointId: string,
  page: { limit: number; offset: number },
): Promise<{ items: DeliveryAttemptRow[]; total: number }> {
  const params = [endpointId, owner.tenantId, owner.userId];
  const matching = 'from delivery_attempts where endpoint_id = ? and tenant_id = ? and user_id = ?';
  const [rows, count] = await Promise.all([
    sql.rows(attemptRow, `select ${ATTEMPT} ${matching} order by at desc, id desc limit ? offset ?`, [
      ...params,
      page.limit,
      page.offset,
    ]),
    sql.first(countRow, `select count(*)::int as n ${matching}`, params),
  ]);
  return { items: rows, total: count?.n ?? 0 };
}

/** Removes the test sends of an endpoint (those have no delivery); deliveries keep their attempts log. */
export async function deleteTestAttempts(sql: Sql, tenantId: string, endpointId: string): Promise<void> {
  await sql.run('delete from delivery_attempts where endpoint_id = ? and delivery_id is null and tenant_id = ?', [
    endpointId,
    tenantId,
  ]);
}
