import type { Sql } from '@routinely/db';
import type { EventEnvelope } from './envelope.js';

/**
 * Adds events to the outbox inside a raw SQL transaction (`Sql.rawTransaction`), in one statement: the same
 * rows `enqueue` has the unit of work insert (id, subject = type, payload, created_at = occurred_at), for
 * writers that skip the EntityManager on their hot path.
 */
export async function insertOutbox(sql: Sql, events: readonly EventEnvelope[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((event) => ({
    id: event.id,
    subject: event.type,
    payload: event,
    created_at: event.occurred_at,
  }));
  await sql.rows(
    `insert into outbox (id, subject, payload, created_at)
     select id, subject, payload, created_at
     from jsonb_to_recordset(?::jsonb) as x(id uuid, subject text, payload jsonb, created_at timestamptz)`,
    [JSON.stringify(rows)],
  );
}
