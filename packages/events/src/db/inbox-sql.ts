import { column, row, type Sql } from '@routinely/db';

const insertedRow = row({ event_id: column.uuid });

/** Records `eventIds` in the consumer's inbox in the caller's transaction; answers the ids it had not seen. */
export async function recordInbox(sql: Sql, consumer: string, eventIds: readonly string[]): Promise<Set<string>> {
  const inserted = await sql.rows(
    insertedRow,
    `insert into inbox (consumer, event_id, processed_at)
     select ?, id, now() from unnest(?::uuid[]) as id on conflict do nothing returning event_id`,
    [consumer, eventIds],
  );
  return new Set(inserted.map((row) => row.event_id));
}
