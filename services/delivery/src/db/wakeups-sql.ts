import type { Sql } from '@routinely/db';
import pg from 'pg';

/** The channel delivery's processes LISTEN on (workers/wakeups.ts) and NOTIFY when work becomes due. */
export const WAKEUP_CHANNEL = 'delivery_wakeup';

/** Which workers a wake-up is for: the payload of the NOTIFY. */
export type WakeupTopic = 'reminders' | 'deliveries';

/**
 * NOTIFY inside the caller's transaction: PostgreSQL delivers it on commit, so a listener never wakes up
 * before the work it is told about is visible.
 */
export async function notifyWakeup(sql: Sql, topic: WakeupTopic): Promise<void> {
  await sql.run('select pg_notify(?, ?)', [WAKEUP_CHANNEL, topic]);
}

/** An open LISTEN connection; `close` ends it. */
export interface WakeupConnection {
  close(): Promise<void>;
}

/**
 * Opens a connection of its own (a pooled one cannot stay LISTENing) and LISTENs on WAKEUP_CHANNEL: `onWake`
 * gets each NOTIFY's payload, `onLost` each error of the connection. Rejects, with the connection ended, when
 * it cannot connect or listen.
 */
export async function listenForWakeups(
  url: string,
  onWake: (payload: string) => void,
  onLost: (error: Error) => void,
): Promise<WakeupConnection> {
  const client = new pg.Client({ connectionString: url });
  client.on('notification', (message) => onWake(message.payload ?? ''));
  client.on('error', onLost);
  try {
    await client.connect();
    await client.query(`LISTEN ${WAKEUP_CHANNEL}`);
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  return { close: () => client.end() };
}
