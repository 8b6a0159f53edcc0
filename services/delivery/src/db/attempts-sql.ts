import type { Knex } from '@mikro-orm/knex';
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
export async function insertAttempt(knex: Knex, record: AttemptRecord): Promise<void> {
  await knex('delivery_attempts').insert({ id: uuidv7(), ...record });
}
