import { type Orm, Sql } from '@routinely/db';
import { z } from 'zod';

/** Any row, every column as the pool answers it: what a test's assertion reads (services read through schemas). */
const anyRow = z.record(z.string(), z.unknown());

/**
 * The rows of a statement a test runs to check what a service stored, on the service's own handle. `T` only
 * names the columns the assertion reads; the test's expectations check their values.
 */
export async function sqlRows<T = Record<string, unknown>>(
  orm: Orm,
  query: string,
  params: readonly unknown[] = [],
): Promise<T[]> {
  return (await Sql.of(orm).rows(anyRow, query, params)) as T[];
}

/** A statement a test runs to set up a state the API cannot produce (answers the rows it touched). */
export function sqlRun(orm: Orm, query: string, params: readonly unknown[] = []): Promise<number> {
  return Sql.of(orm).run(query, params);
}

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
