import type { EntityManager } from '@routinely/db';
import type { EventOf, TaskSnapshot, taskEvents } from '@routinely/events';
import type { Clock, Owner } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import { Reminder } from '../db/entities.js';
import { notifyWakeup } from '../workers/wakeups.js';

const ACTIVE = new Set(['pending', 'scheduled']);

/** When the task's reminder should fire, or null when it should have none. */
function reminderTimeFor(task: TaskSnapshot, deleted: boolean): Date | null {
  if (deleted || !ACTIVE.has(task.status) || !task.chosen_slot_start) return null;
  if (task.reminder_channels.length === 0) return null;
  return new Date(new Date(task.chosen_slot_start).getTime() - task.reminder_offset_min * 60_000);
}

/**
 * Keeps the task's reminder in step with a task event: created or moved when the slot is set or moves,
 * cancelled when the task is done, skipped, unscheduled or deleted. Events older than the stored task
 * version are ignored, so out-of-order delivery cannot resurrect a cancelled reminder. Returns true when
 * a reminder became due-able (the firer should re-arm).
 */
export type TaskEvent = EventOf<(typeof taskEvents)[keyof typeof taskEvents]>;

export async function applyTaskEvent(em: EntityManager, event: TaskEvent, clock: Clock): Promise<boolean> {
  const { task } = event.data;
  const now = clock.now();
  const version = new Date(task.updated_at);
  const existing = await em.findOne(Reminder, { taskId: task.id, tenantId: task.tenant_id });
  if (existing && existing.taskUpdatedAt > version) return false;
  let remindAt = reminderTimeFor(task, event.type === 'task.task.deleted');
  // A slot that has already begun gets no reminder; one whose offset already passed fires at once.
  if (remindAt && task.chosen_slot_start && new Date(task.chosen_slot_start) <= now) remindAt = null;
  if (!remindAt) {
    if (existing) {
      existing.task = task;
      existing.taskUpdatedAt = version;
      if (existing.status === 'scheduled') existing.status = 'cancelled';
      existing.updatedAt = now;
    }
    return false;
  }
  if (!existing) {
    em.create(Reminder, {
      id: uuidv7(),
      tenantId: task.tenant_id,
      userId: task.user_id,
      taskId: task.id,
      task,
      taskUpdatedAt: version,
      channels: task.reminder_channels,
      remindAt,
      status: 'scheduled',
      reminderSetAt: now,
      firedAt: null,
      createdAt: now,
      updatedAt: now,
    });
  } else {
    const moved = existing.remindAt.getTime() !== remindAt.getTime();
    existing.task = task;
    existing.taskUpdatedAt = version;
    existing.channels = task.reminder_channels;
    existing.updatedAt = now;
    if (moved || existing.status === 'cancelled') {
      existing.remindAt = remindAt;
      existing.status = 'scheduled';
      existing.reminderSetAt = now;
      existing.firedAt = null;
    }
  }
  await em.flush();
  // Delivered on commit to every process LISTENing, so whichever replica is idle re-arms its timer.
  await notifyWakeup(em, 'reminders');
  return true;
}

export interface UpcomingReminder {
  reminder_id: string;
  task_id: string;
  task_title: string;
  remind_at: string;
  channels: string[];
}

export async function upcomingReminders(
  em: EntityManager,
  owner: Owner,
  days: number,
  limit: number,
  clock: Clock,
): Promise<UpcomingReminder[]> {
  const now = clock.now();
  const rows = await em.find(
    Reminder,
    {
      tenantId: owner.tenantId,
      userId: owner.userId,
      status: 'scheduled',
      remindAt: { $gte: now, $lte: new Date(now.getTime() + days * 86_400_000) },
    },
    { orderBy: { remindAt: 'asc' }, limit },
  );
  return rows.map((r) => ({
    reminder_id: r.id,
    task_id: r.taskId,
    task_title: String(r.task.title ?? ''),
    remind_at: r.remindAt.toISOString(),
    channels: r.channels,
  }));
}
