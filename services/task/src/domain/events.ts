import type { EntityManager } from '@routinely/db';
import { enqueue, makeEvent, taskEvents } from '@routinely/events';
import { type TaskRow, toSnapshot } from './task-model.js';

export type TaskEventKind = keyof typeof taskEvents;

/** Adds the event of a task change to the outbox of the caller's transaction. */
export function emitTaskEvent(em: EntityManager, kind: TaskEventKind, row: TaskRow, at: Date): void {
  enqueue(
    em,
    makeEvent(taskEvents[kind], { tenantId: row.tenant_id, userId: row.user_id, at }, { task: toSnapshot(row) }),
  );
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
