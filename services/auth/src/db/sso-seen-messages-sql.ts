import { row, type Sql } from '@routinely/db';

/** Only whether a row is there: nobody reads its columns. */
const existsRow = row({});

/** Whether a message key (a hash of kind and id) is remembered. */
export async function seenMessage(sql: Sql, key: string): Promise<boolean> {
  return (await sql.first(existsRow, 'select 1 from sso_seen_messages where key = ?', [key])) !== undefined;
}

export async function deleteSeenMessagesExpiredBefore(sql: Sql, before: Date): Promise<void> {
  await sql.run('delete from sso_seen_messages where expires_at < ?', [before]);
}

/** Remembers a message key until `expiresAt`; a key already remembered stays as it is. */
export async function rememberMessage(sql: Sql, key: string, kind: string, expiresAt: Date): Promise<void> {
  await sql.run('insert into sso_seen_messages (key, kind, expires_at) values (?, ?, ?) on conflict (key) do nothing', [
    key,
    kind,
    expiresAt,
  ]);
}
