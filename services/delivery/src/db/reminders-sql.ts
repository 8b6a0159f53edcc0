import {
  type ColumnTypes,
  column,
  columnOf,
  insertRows,
  type Row,
  type RowChange,
  row,
  type Sql,
  updateChangedRows,
} from '@routinely/db';
import { z } from 'zod';
import { CHANNELS, REMINDER_STATUSES } from '../domain/values.js';
import { countRow } from './counts-sql.js';
import type { ReminderRow } from './entities.js';

/**
 * Serializes the handling of each task's events until the transaction ends. A row lock cannot do it: the
 * first event of a task has no reminder row to lock yet. One statement for all of a burst's tasks, taking
 * the locks in the order given (callers sort the ids, so two bursts never wait on each other in a cycle).
 */
export async function lockTasks(sql: Sql, taskIds: readonly string[]): Promise<void> {
  if (taskIds.length === 0) return;
  await sql.run(
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
  const count = await sql.first(
    countRow,
    `select count(*)::int as n from reminders
     where tenant_id = ? and user_id = ? and status = 'scheduled' and remind_at >= ? and remind_at < ?`,
    [owner.tenantId, owner.userId, window.start, window.end],
  );
  return count?.n ?? 0;
}

/** A scheduled reminder as the upcoming list shows it. */
const upcomingReminderRow = row({
  id: column.uuid,
  task_id: column.uuid,
  task: column.json(z.record(z.string(), z.unknown())),
  remind_at: column.timestamp,
  channels: column.json(z.array(z.string())),
});
export type UpcomingReminderRow = Row<typeof upcomingReminderRow>;

/** The owner's scheduled reminders due in [from, to], soonest first. */
export async function ownerUpcomingReminders(
  sql: Sql,
  owner: { tenantId: string; userId: string },
  window: { from: Date; to: Date },
  limit: number,
): Promise<UpcomingReminderRow[]> {
  return sql.rows(
    upcomingReminderRow,
    `select id, task_id, task, remind_at, channels from reminders
     where tenant_id = ? and user_id = ? and status = 'scheduled' and remind_at >= ? and remind_at <= ?
     order by remind_at limit ?`,
    [owner.tenantId, owner.userId, window.from, window.to, limit],
  );
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

/** A reminder read back under its property names (the keys of REMINDER_TYPE_OF). */
const reminderRow = row({
  id: column.uuid,
  tenantId: column.text,
  userId: column.text,
  taskId: column.uuid,
  task: column.json(z.record(z.string(), z.unknown())),
  taskUpdatedAt: column.timestamp,
  taskVersion: column.integer,
  channels: column.json(z.array(z.enum(CHANNELS))),
  remindAt: column.timestamp,
  status: z.enum(REMINDER_STATUSES),
  reminderSetAt: column.timestamp,
  firedAt: column.timestamp.nullable(),
  createdAt: column.timestamp,
  updatedAt: column.timestamp,
});

/**
 * The reminders of the tasks `taskIds` (whatever their tenant), locked until the transaction ends: a firing
 * under way (the firer holds its rows) is waited for and read as fired, so a task event that moves the slot
 * arms the reminder again. Read unlocked, the move wrote only the time while the firer's `fired` stayed, and the
 * reminder of the new slot never fired (a fault-tier run: a move applied as PostgreSQL came back).
 */
export async function tasksReminders(sql: Sql, taskIds: readonly string[]): Promise<ReminderRow[]> {
  if (taskIds.length === 0) return [];
  return sql.rows(
    reminderRow,
    `select ${[...REMINDER_TYPES.keys()].map((p) => `${columnOf(p)} as "${p}"`).join(', ')}
     from reminders where task_id = any(?::uuid[]) for update`,
    [taskIds],
  );
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
