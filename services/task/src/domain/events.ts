import { type EventEnvelope, makeEvent, taskEvents } from '@routinely/events';
import { type TaskRow, toSnapshot } from './task-model.js';

export type TaskEventKind = keyof typeof taskEvents;

/**
 * Where a transaction's events go: a list the transaction inserts into the outbox with one `enqueue` before it
 * commits (one statement per write on the hot path, see `writeWithOutbox`).
 */
export type TaskOutbox = EventEnvelope[];

/** The event of a task change: the task as `row` describes it after the change. */
export function taskEvent(kind: TaskEventKind, row: TaskRow, at: Date): EventEnvelope {
  return makeEvent(taskEvents[kind], { tenantId: row.tenant_id, userId: row.user_id, at }, { task: toSnapshot(row) });
}

/** Adds the event of a task change to the outbox list of the caller's transaction. */
export function emitTaskEvent(outbox: TaskOutbox, kind: TaskEventKind, row: TaskRow, at: Date): void {
  outbox.push(taskEvent(kind, row, at));
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
