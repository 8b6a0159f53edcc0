import type { Sql } from '@routinely/db';

export interface DeadLetterRow {
  id: string;
  consumer: string;
  event_id: string | null;
  subject: string;
  payload: unknown;
  error: string;
  attempts: number;
  created_at: Date;
}

/** Stores a message a consumer gave up on, once per consumer and event. */
export async function insertDeadLetter(
  sql: Sql,
  letter: Omit<DeadLetterRow, 'payload'> & { payload: unknown },
): Promise<void> {
  await sql.rows(
    `insert into event_dead_letter (id, consumer, event_id, subject, payload, error, attempts, created_at)
     values (?, ?, ?, ?, ?::jsonb, ?, ?, ?) on conflict do nothing`,
    [
      letter.id,
      letter.consumer,
      letter.event_id,
      letter.subject,
      JSON.stringify(letter.payload ?? null),
      letter.error,
      letter.attempts,
      letter.created_at,
    ],
  );
}

/** The consumer's dead letters (all, or those of `ids`), oldest first. */
export async function deadLettersOf(sql: Sql, consumer: string, ids?: readonly string[]): Promise<DeadLetterRow[]> {
  const rows = await sql.rows<Omit<DeadLetterRow, 'created_at'> & { created_at: string | Date }>(
    `select * from event_dead_letter where consumer = ? ${ids ? 'and id = any(?::uuid[])' : ''}
     order by created_at, id`,
    ids ? [consumer, ids] : [consumer],
  );
  return rows.map((row) => ({ ...row, created_at: new Date(row.created_at) }));
}

export async function deleteDeadLetter(sql: Sql, id: string): Promise<void> {
  await sql.rows('delete from event_dead_letter where id = ?', [id]);
}

/** How many letters of the consumer and event type are stored, and the newest one's time (null: none). */
export async function remainingDeadLetters(
  sql: Sql,
  consumer: string,
  subject: string,
): Promise<{ remaining: number; last_at: Date | null }> {
  const [row] = await sql.rows<{ remaining: number; last_at: string | Date | null }>(
    `select count(*)::int as remaining, max(created_at) as last_at from event_dead_letter
     where consumer = ? and subject = ?`,
    [consumer, subject],
  );
  return { remaining: row?.remaining ?? 0, last_at: row?.last_at ? new Date(row.last_at) : null };
}

/** A replay that failed again: its error and one more attempt. */
export async function recordDeadLetterFailure(sql: Sql, id: string, error: string): Promise<void> {
  await sql.rows('update event_dead_letter set error = ?, attempts = attempts + 1 where id = ?', [error, id]);
}

/** Dead letters stored since `since`, per consumer and event type: how many and the newest one's time. */
export async function deadLettersSince(
  sql: Sql,
  since: Date,
): Promise<{ consumer: string; type: string; count: number; last_at: Date }[]> {
  const rows = await sql.rows<{ consumer: string; subject: string; count: number; last_at: string | Date }>(
    `select consumer, subject, count(*)::int as count, max(created_at) as last_at from event_dead_letter
     where created_at > ? group by consumer, subject order by consumer, subject`,
    [since],
  );
  return rows.map((row) => ({
    consumer: row.consumer,
    type: row.subject,
    count: row.count,
    last_at: new Date(row.last_at),
  }));
}
