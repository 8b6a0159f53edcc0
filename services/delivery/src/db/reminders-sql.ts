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

/** A scheduled reminder as the upcoming list shows it. */
export interface UpcomingReminderRow {
  id: string;
  task_id: string;
  task: Record<string, unknown>;
  remind_at: Date;
  channels: string[];
}

/** The owner's scheduled reminders due in [from, to], soonest first. */
export async function ownerUpcomingReminders(
  sql: Sql,
  owner: { tenantId: string; userId: string },
  window: { from: Date; to: Date },
  limit: number,
): Promise<UpcomingReminderRow[]> {
  const rows = await sql.rows<Omit<UpcomingReminderRow, 'remind_at'> & { remind_at: string | Date }>(
    `select id, task_id, task, remind_at, channels from reminders
     where tenant_id = ? and user_id = ? and status = 'scheduled' and remind_at >= ? and remind_at <= ?
     order by remind_at limit ?`,
    [owner.tenantId, owner.userId, window.from, window.to, limit],
  );
  return rows.map((raw) => ({ ...raw, remind_at: new Date(raw.remind_at) }));
}
