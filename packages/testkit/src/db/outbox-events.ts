import type { Orm } from '@routinely/db';
import { sqlRows } from '../sql-rows.js';

/**
 * The outbox read as one row per event, for a test's `from`: a row of the outbox holds one event or a run of one
 * transaction's events of one type (an array, ADR 004). `payload` is the event; `row_id` and `n` give the order
 * written (`order by row_id, n`); `subject` and `published_at` are its row's.
 */
export const OUTBOX_EVENTS = `(select o.id as row_id, e.n, e.payload, o.subject, o.created_at, o.published_at
  from outbox o cross join lateral jsonb_array_elements(
    case jsonb_typeof(o.payload) when 'array' then o.payload else jsonb_build_array(o.payload) end
  ) with ordinality as e(payload, n)) as outbox_events`;

/** Every event in the outbox, in the order written (`T` names what the test reads of an event). */
export async function outboxPayloads<T>(orm: Orm): Promise<T[]> {
  const rows = await sqlRows<{ payload: T }>(orm, `select payload from ${OUTBOX_EVENTS} order by row_id, n`);
  return rows.map((row) => row.payload);
}
