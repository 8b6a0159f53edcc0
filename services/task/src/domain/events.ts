import type { EntityManager } from '@routinely/db';
import { type EventEnvelope, enqueue, makeEvent, taskEvents } from '@routinely/events';
import { type TaskRow, toSnapshot } from './task-model.js';

export type TaskEventKind = keyof typeof taskEvents;

/**
 * Where a transaction's events go: the unit of work of an EntityManager transaction, or the list a raw SQL
 * transaction inserts into the outbox before it commits (TaskService's writes, see `insertOutbox`).
 */
export type TaskOutbox = EntityManager | EventEnvelope[];

/** The event of a task change: the task as `row` describes it after the change. */
export function taskEvent(kind: TaskEventKind, row: TaskRow, at: Date): EventEnvelope {
  return makeEvent(taskEvents[kind], { tenantId: row.tenant_id, userId: row.user_id, at }, { task: toSnapshot(row) });
}

/** Adds the event of a task change to the outbox of the caller's transaction. */
export function emitTaskEvent(outbox: TaskOutbox, kind: TaskEventKind, row: TaskRow, at: Date): void {
  const event = taskEvent(kind, row, at);
  if (Array.isArray(outbox)) outbox.push(event);
  else enqueue(outbox, event);
}

/**
 * Which one event describes a change from `before` to `after`: completion and skipping first, then a
 * new or moved slot (taskScheduled), a removed slot (taskUnscheduled), else a plain update. Every event carries
 * the whole task after the change, so one is enough for any consumer.
 */
export function eventForChange(before: TaskRow, after: TaskRow): TaskEventKind {
  if (after.status !== before.status) {
    if (after.status === 'done') return 'taskCompleted';
    if (after.status === 'skipped') return 'taskSkipped';
  }
  const hadSlot = before.chosen_slot_start !== null;
  const hasSlot = after.chosen_slot_start !== null;
  const slotMoved =
    hasSlot &&
    (!hadSlot ||
      before.chosen_slot_start?.getTime() !== after.chosen_slot_start?.getTime() ||
      before.chosen_slot_end?.getTime() !== after.chosen_slot_end?.getTime());
  if (after.status === 'scheduled' && (slotMoved || before.status !== 'scheduled')) return 'taskScheduled';
  if (hadSlot && !hasSlot) return 'taskUnscheduled';
  if (before.status === 'scheduled' && after.status === 'pending') return 'taskUnscheduled';
  return 'taskUpdated';
}
