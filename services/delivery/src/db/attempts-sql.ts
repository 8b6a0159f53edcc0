import type { Sql } from '@routinely/db';
import { v7 as uuidv7 } from 'uuid';

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
  await sql.rows(
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
