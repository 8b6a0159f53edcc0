import type { Sql } from '@routinely/db';

/** The channel delivery's processes LISTEN on (workers/wakeups.ts) and NOTIFY when work becomes due. */
export const WAKEUP_CHANNEL = 'delivery_wakeup';

/** Which workers a wake-up is for: the payload of the NOTIFY. */
export type WakeupTopic = 'reminders' | 'deliveries';

/**
 * NOTIFY inside the caller's transaction: PostgreSQL delivers it on commit, so a listener never wakes up
 * before the work it is told about is visible.
 */
export async function notifyWakeup(sql: Sql, topic: WakeupTopic): Promise<void> {
  await sql.rows('select pg_notify(?, ?)', [WAKEUP_CHANNEL, topic]);
}
