import type { Sql } from '@routinely/db';
import type { EventOf, TaskSnapshot, taskEvents } from '@routinely/events';
import type { Clock, Owner } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import type { ReminderRow } from '../db/entities.js';
import {
  insertReminders,
  lockTasks,
  ownerUpcomingReminders,
  tasksReminders,
  writeReminderChanges,
} from '../db/reminders-sql.js';
import { notifyWakeup } from '../db/wakeups-sql.js';
import type { ReminderStatus } from './values.js';

const ACTIVE = new Set(['pending', 'scheduled']);

/** When the task's reminder should fire, or null when it should have none. */
function reminderTimeFor(task: TaskSnapshot, deleted: boolean): Date | null {
  if (deleted || !ACTIVE.has(task.status) || !task.chosen_slot_start) return null;
  if (task.reminder_channels.length === 0) return null;
  return new Date(new Date(task.chosen_slot_start).getTime() - task.reminder_offset_min * 60_000);
}

export type TaskEvent = EventOf<(typeof taskEvents)[keyof typeof taskEvents]>;

/** Whether `task` is older than (or the same change as) what the reminder already reflects. */
function isStale(existing: { taskVersion: number; taskUpdatedAt: Date }, task: TaskSnapshot): boolean {
  if (task.version !== existing.taskVersion) return task.version < existing.taskVersion;
  // Equal versions: the same change again, except events from before versions existed (0), judged by time.
  return task.version > 0 || existing.taskUpdatedAt > new Date(task.updated_at);
}

/** Runs one event's step in its consumer span (the burst path passes the consumer's; alone it just runs). */
export type EventStep = <T>(event: TaskEvent, step: () => Promise<T>) => Promise<T>;
const runStep: EventStep = (_event, step) => step();

/**
 * Keeps the task's reminder in step with a task event: created or moved when the slot is set or moves,
 * cancelled when the task is done, skipped, unscheduled or deleted. One task's events apply in the order the
 * task service committed them, whatever order they arrive in: an event whose version is not newer than the
 * stored one is ignored (ADR 021), and events of one task are handled one at a time (a transaction lock on
 * the task id), so two racing handlers cannot both read the old row. Returns true when a reminder became
 * due-able (the firer should re-arm).
 */
export function applyTaskEvent(sql: Sql, event: TaskEvent, clock: Clock): Promise<boolean> {
  return applyTaskEvents(sql, [event], clock);
}

/**
 * `applyTaskEvent` for the events of a burst, in order, with two statements for all of them: the locks of
 * every task they touch (taken in one sorted order, so two bursts never wait on each other in a cycle), then
 * the reminders of those tasks. Each event then applies to the reminder as the previous events of the burst
 * left it (the same object), exactly as if each ran alone after the previous one; one insert of the new
 * reminders, one update per set of changed columns and at most one wake-up end the burst. Returns true when
 * a reminder became due-able.
 */
export async function applyTaskEvents(
  sql: Sql,
  events: readonly TaskEvent[],
  clock: Clock,
  inEventSpan: EventStep = runStep,
): Promise<boolean> {
  const taskIds = [...new Set(events.map((event) => event.data.task.id))].sort();
  await lockTasks(sql, taskIds);
  const loaded = await tasksReminders(sql, taskIds);
  const asRead = new Map(loaded.map((reminder) => [reminder.id, reminder]));
  // Copies, so that what the events change can be told from what was read.
  const reminders = new Map(loaded.map((reminder) => [reminder.taskId, { ...reminder }]));
  let dueable = false;
  for (const event of events) {
    const changed = await inEventSpan(event, async () => applyToReminder(reminders, event, clock.now()));
    dueable ||= changed;
  }
  const burstEnd = [...reminders.values()];
  await insertReminders(
    sql,
    burstEnd.filter((reminder) => !asRead.has(reminder.id)),
  );
  await writeReminderChanges(
    sql,
    burstEnd.flatMap((after) => {
      const before = asRead.get(after.id);
      return before ? [{ before, after }] : [];
    }),
  );
  // Delivered on commit to every process LISTENing, so whichever replica is idle re-arms its timer.
  if (dueable) await notifyWakeup(sql, 'reminders');
  return dueable;
}

/**
 * Applies one event to its task's reminder in `reminders` (task id -> reminder, loaded under the task's
 * lock; a new reminder is added to it). Returns true when the reminder became due-able.
 */
function applyToReminder(reminders: Map<string, ReminderRow>, event: TaskEvent, now: Date): boolean {
  const { task } = event.data;
  const version = new Date(task.updated_at);
  const found = reminders.get(task.id);
  // A reminder is the task's only when the tenant matches too (as the single lookup by task and tenant had it).
  const existing = found && found.tenantId === task.tenant_id ? found : undefined;
  if (existing && isStale(existing, task)) return false;
  let remindAt = reminderTimeFor(task, event.type === 'task.task.deleted');
  // A slot that has already begun gets no reminder; one whose offset already passed fires at once.
  if (remindAt && task.chosen_slot_start && new Date(task.chosen_slot_start) <= now) remindAt = null;
  if (!remindAt) {
    if (existing) {
      existing.task = task;
      existing.taskUpdatedAt = version;
      existing.taskVersion = task.version;
      if (existing.status === 'scheduled') existing.status = 'cancelled';
      existing.updatedAt = now;
    } else if (task.version > 1) {
      // A cancelled row remembers the version, so older events arriving later cannot create the reminder.
      reminders.set(task.id, reminderRow(task, now, 'cancelled', now));
    }
    return false;
  }
  if (!existing) {
    reminders.set(task.id, reminderRow(task, remindAt, 'scheduled', now));
  } else {
    const moved = existing.remindAt.getTime() !== remindAt.getTime();
    existing.task = task;
    existing.taskUpdatedAt = version;
    existing.taskVersion = task.version;
    existing.channels = task.reminder_channels;
    existing.updatedAt = now;
    if (moved || existing.status === 'cancelled') {
      existing.remindAt = remindAt;
      existing.status = 'scheduled';
      existing.reminderSetAt = now;
      existing.firedAt = null;
    }
  }
  return true;
}

function reminderRow(task: TaskSnapshot, remindAt: Date, status: ReminderStatus, now: Date): ReminderRow {
  return {
    id: uuidv7(),
    tenantId: task.tenant_id,
    userId: task.user_id,
    taskId: task.id,
    task,
    taskUpdatedAt: new Date(task.updated_at),
    taskVersion: task.version,
    channels: task.reminder_channels,
    remindAt,
    status,
    reminderSetAt: now,
    firedAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

export interface UpcomingReminder {
  reminder_id: string;
  task_id: string;
  task_title: string;
  remind_at: string;
  channels: string[];
}

export async function upcomingReminders(
  db: Sql,
  owner: Owner,
  days: number,
  limit: number,
  clock: Clock,
): Promise<UpcomingReminder[]> {
  const now = clock.now();
  const window = { from: now, to: new Date(now.getTime() + days * 86_400_000) };
  const rows = await ownerUpcomingReminders(db, owner, window, limit);
  return rows.map((r) => ({
    reminder_id: r.id,
    task_id: r.task_id,
    task_title: String(r.task.title ?? ''),
    remind_at: r.remind_at.toISOString(),
    channels: r.channels,
  }));
}
