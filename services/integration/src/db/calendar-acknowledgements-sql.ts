import { column, row, type Sql } from '@routinely/db';

const countRow = row({ n: column.integer });

/**
 * Records the task service's report on one of our events (in the consumer's transaction) and prunes reports
 * received before `keepSince`: only a request still waiting reads them, and no request waits that long.
 */
export async function recordAcknowledgement(sql: Sql, sourceEventId: string, at: Date, keepSince: Date): Promise<void> {
  await sql.run(
    'insert into calendar_acknowledgements (source_event_id, acknowledged_at) values (?, ?) on conflict do nothing',
    [sourceEventId, at],
  );
  await sql.run('delete from calendar_acknowledgements where acknowledged_at < ?', [keepSince]);
}

/** How many of these events the task service has reported applied. */
export async function countAcknowledged(sql: Sql, eventIds: readonly string[]): Promise<number> {
  const row = await sql.first(
    countRow,
    'select count(*)::int as n from calendar_acknowledgements where source_event_id = any(?::uuid[])',
    [eventIds],
  );
  return row?.n ?? 0;
}
