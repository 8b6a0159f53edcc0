import type { Sql } from '@routinely/db';

/** Whether a message key (a hash of kind and id) is remembered. */
export async function seenMessage(sql: Sql, key: string): Promise<boolean> {
  return (await sql.first('select 1 from sso_seen_messages where key = ?', [key])) !== undefined;
}

export async function deleteSeenMessagesExpiredBefore(sql: Sql, before: Date): Promise<void> {
  await sql.rows('delete from sso_seen_messages where expires_at < ?', [before]);
}

/** Remembers a message key until `expiresAt`; a key already remembered stays as it is. */
export async function rememberMessage(sql: Sql, key: string, kind: string, expiresAt: Date): Promise<void> {
  await sql.rows(
    'insert into sso_seen_messages (key, kind, expires_at) values (?, ?, ?) on conflict (key) do nothing',
    [key, kind, expiresAt],
  );
}
