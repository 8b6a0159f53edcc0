import { column, type Row, row, type Sql } from '@routinely/db';
import { z } from 'zod';

const deadLetterRow = row({
  id: column.uuid,
  consumer: column.text,
  event_id: column.uuid.nullable(),
  subject: column.text,
  payload: column.json(z.unknown()),
  error: column.text,
  attempts: column.integer,
  created_at: column.timestamp,
});
export type DeadLetterRow = Row<typeof deadLetterRow>;

const remainingRow = row({ remaining: column.integer, last_at: column.timestamp.nullable() });
const recentRow = row({
  consumer: column.text,
  subject: column.text,
  count: column.integer,
  last_at: column.timestamp,
});

/** Stores a message a consumer gave up on, once per consumer and event. */
export async function insertDeadLetter(
  sql: Sql,
  letter: Omit<DeadLetterRow, 'payload'> & { payload: unknown },
): Promise<void> {
  await sql.run(
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
  return sql.rows(
    deadLetterRow,
    `select * from event_dead_letter where consumer = ? ${ids ? 'and id = any(?::uuid[])' : ''}
     order by created_at, id`,
    ids ? [consumer, ids] : [consumer],
  );
}

export async function deleteDeadLetter(sql: Sql, id: string): Promise<void> {
  await sql.run('delete from event_dead_letter where id = ?', [id]);
}

/** How many letters of the consumer and event type are stored, and the newest one's time (null: none). */
export async function remainingDeadLetters(
  sql: Sql,
  consumer: string,
  subject: string,
): Promise<{ remaining: number; last_at: Date | null }> {
  const stored = await sql.first(
    remainingRow,
    `select count(*)::int as remaining, max(created_at) as last_at from event_dead_letter
     where consumer = ? and subject = ?`,
    [consumer, subject],
  );
  return { remaining: stored?.remaining ?? 0, last_at: stored?.last_at ?? null };
}

/** A replay that failed again: its error and one more attempt. */
export async function recordDeadLetterFailure(sql: Sql, id: string, error: string): Promise<void> {
  await sql.run('update event_dead_letter set error = ?, attempts = attempts + 1 where id = ?', [error, id]);
}

/** Dead letters stored since `since`, per consumer and event type: how many and the newest one's time. */
export async function deadLettersSince(
  sql: Sql,
  since: Date,
): Promise<{ consumer: string; type: string; count: number; last_at: Date }[]> {
  const rows = await sql.rows(
    recentRow,
    `select consumer, subject, count(*)::int as count, max(created_at) as last_at from event_dead_letter
     where created_at > ? group by consumer, subject order by consumer, subject`,
    [since],
  );
  return rows.map(({ subject, ...rest }) => ({ ...rest, type: subject }));
}
