import { type FieldLoc, fieldError } from '@routinely/platform';
import type { TaskRow, TaskStatus } from './task-model.js';

/** Contract: a manual or override slot is at most 31 days long, checked before any work. */
const MAX_SLOT_MS = 31 * 86_400_000;

export interface StatusAndSlotPatch {
  status?: TaskStatus | undefined;
  chosen_slot_start?: Date | null | undefined;
  chosen_slot_end?: Date | null | undefined;
}

/**
 * Applies a status and/or slot change to a row: a task with a slot is `scheduled`, clearing the slot returns
 * it to `pending`, `done` stamps completed_at. `loc` prefixes field paths in errors (body, or a gRPC field).
 */
export function applyStatusAndSlot(
  row: TaskRow,
  patch: StatusAndSlotPatch,
  now: Date,
  loc: FieldLoc = ['body'],
): TaskRow {
  const next = { ...row };
  const touchesSlot = patch.chosen_slot_start !== undefined || patch.chosen_slot_end !== undefined;
  if (patch.chosen_slot_start !== undefined) next.chosen_slot_start = patch.chosen_slot_start;
  if (patch.chosen_slot_end !== undefined) next.chosen_slot_end = patch.chosen_slot_end;
  if ((next.chosen_slot_start === null) !== (next.chosen_slot_end === null)) {
    const missing = next.chosen_slot_start === null ? 'chosen_slot_start' : 'chosen_slot_end';
    throw fieldError([...loc, missing], 'chosen_slot_start and chosen_slot_end are set or cleared together');
  }
  if (next.chosen_slot_start && next.chosen_slot_end && next.chosen_slot_end <= next.chosen_slot_start) {
    throw fieldError([...loc, 'chosen_slot_end'], 'must be after chosen_slot_start');
  }
  if (
    touchesSlot &&
    next.chosen_slot_start &&
    next.chosen_slot_end &&
    next.chosen_slot_end.getTime() - next.chosen_slot_start.getTime() > MAX_SLOT_MS
  ) {
    throw fieldError([...loc, 'chosen_slot_end'], 'a slot is at most 31 days long');
  }
  const hasSlot = next.chosen_slot_start !== null;
  if (patch.status !== undefined) {
    if (patch.status === 'scheduled' && !hasSlot) {
      throw fieldError([...loc, 'status'], 'a scheduled task needs chosen_slot_start and chosen_slot_end');
    }
    if (patch.status === 'pending' && hasSlot) {
      if (touchesSlot && patch.chosen_slot_start !== null) {
        throw fieldError([...loc, 'status'], 'a pending task has no slot; clear the slot or omit status');
      }
      // Back to pending means unscheduled: the slot goes with it.
      next.chosen_slot_start = null;
      next.chosen_slot_end = null;
    }
    next.status = patch.status;
  } else if (touchesSlot && (row.status === 'pending' || row.status === 'scheduled')) {
    next.status = hasSlot ? 'scheduled' : 'pending';
  }
  next.completed_at = next.status === 'done' ? (row.status === 'done' ? row.completed_at : now) : null;
  return next;
}
