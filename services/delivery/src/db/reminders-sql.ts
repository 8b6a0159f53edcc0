import type { Sql } from '@routinely/db';

/**
 * Serializes the handling of each task's events until the transaction ends. A row lock cannot do it: the
 * first event of a task has no reminder row to lock yet. One statement for all of a burst's tasks, taking
 * the locks in the order given (callers sort the ids, so two bursts never wait on each other in a cycle).
 */
export async function lockTasks(sql: Sql, taskIds: readonly string[]): Promise<void> {
  if (taskIds.length === 0) return;
  await sql.rows(
    `select pg_advisory_xact_lock(hashtextextended('delivery.reminder:' || k.id, 0))
       from unnest(array[?]::text[]) with ordinality as k(id, n) order by k.n`,
    [taskIds],
  );
}

/** The owner's scheduled reminders due in [start, end) (the dashboard's figure). */
export async function countScheduledReminders(
  sql: Sql,
  owner: { tenantId: string; userId: string },
  window: { start: Date; end: Date },
): Promise<number> {
  const row = await sql.first<{ n: number }>(
    `select count(*)::int as n from reminders
     where tenant_id = ? and user_id = ? and status = 'scheduled' and remind_at >= ? and remind_at < ?`,
    [owner.tenantId, owner.userId, window.start, window.end],
  );
  return row?.n ?? 0;
}
