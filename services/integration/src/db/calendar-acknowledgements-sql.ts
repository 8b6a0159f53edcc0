import { type Orm, Sql } from '@routinely/db';

/**
 * Records the task service's report on one of our events (in the consumer's transaction) and prunes reports
 * received before `keepSince`: only a request still waiting reads them, and no request waits that long.
 */
export async function recordAcknowledgement(sql: Sql, sourceEventId: string, at: Date, keepSince: Date): Promise<void> {
  await sql.rows(
    'insert into calendar_acknowledgements (source_event_id, acknowledged_at) values (?, ?) on conflict do nothing',
    [sourceEventId, at],
  );
  await sql.rows('delete from calendar_acknowledgements where acknowledged_at < ?', [keepSince]);
}

/** How many of these events the task service has reported applied. */
export async function countAcknowledged(orm: Orm, eventIds: readonly string[]): Promise<number> {
  const row = await Sql.pool(orm).first<{ n: number }>(
    'select count(*)::int as n from calendar_acknowledgements where source_event_id = any(?::uuid[])',
    [eventIds],
  );
  return row?.n ?? 0;
}
