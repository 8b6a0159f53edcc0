import { type ColumnTypes, columnOf, insertRows, type RowChange, type Sql, updateChangedRows } from '@routinely/db';
import type { ReminderRow } from './entities.js';

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

/** Each column of a reminder with its type, as a JSON record of the row is read back (`jsonb_to_recordset`). */
const REMINDER_TYPE_OF = {
  id: 'uuid',
  tenantId: 'text',
  userId: 'text',
  taskId: 'uuid',
  task: 'jsonb',
  taskUpdatedAt: 'timestamptz',
  taskVersion: 'int',
  channels: 'jsonb',
  remindAt: 'timestamptz',
  status: 'text',
  reminderSetAt: 'timestamptz',
  firedAt: 'timestamptz',
  createdAt: 'timestamptz',
  updatedAt: 'timestamptz',
} satisfies Record<Extract<keyof ReminderRow, string>, string>;
const REMINDER_TYPES: ColumnTypes = new Map(Object.entries(REMINDER_TYPE_OF));

type RawReminder = Omit<
  ReminderRow,
  'taskUpdatedAt' | 'remindAt' | 'reminderSetAt' | 'firedAt' | 'createdAt' | 'updatedAt'
> &
  Record<'taskUpdatedAt' | 'remindAt' | 'reminderSetAt' | 'createdAt' | 'updatedAt', string | Date> & {
    firedAt: string | Date | null;
  };

/** The reminders of the tasks `taskIds` (whatever their tenant), timestamps as Dates. */
export async function tasksReminders(sql: Sql, taskIds: readonly string[]): Promise<ReminderRow[]> {
  if (taskIds.length === 0) return [];
  const rows = await sql.rows<RawReminder>(
    `select ${[...REMINDER_TYPES.keys()].map((p) => `${columnOf(p)} as "${p}"`).join(', ')}
     from reminders where task_id = any(?::uuid[])`,
    [taskIds],
  );
  return rows.map((raw) => ({
    ...raw,
    taskUpdatedAt: new Date(raw.taskUpdatedAt),
    remindAt: new Date(raw.remindAt),
    reminderSetAt: new Date(raw.reminderSetAt),
    firedAt: raw.firedAt === null ? null : new Date(raw.firedAt),
    createdAt: new Date(raw.createdAt),
    updatedAt: new Date(raw.updatedAt),
  }));
}

/** Writes new reminders, every column, in one statement. */
export function insertReminders(sql: Sql, rows: readonly ReminderRow[]): Promise<void> {
  return insertRows(sql, 'reminders', REMINDER_TYPES, rows);
}

/**
 * Writes what changed in each reminder, only the columns that changed (see `changed-columns.ts` of @routinely/db; the firer
 * may have marked one fired meanwhile), one statement per set of changed columns.
 */
export function writeReminderChanges(sql: Sql, changes: readonly RowChange<ReminderRow>[]): Promise<void> {
  return updateChangedRows(sql, 'reminders', REMINDER_TYPES, changes);
}
