import type { TaskSnapshot } from '@routinely/events';
import type { TaskRow, TaskTextRow } from '../db/task-sql.js';
import type { NewTask, ReminderChannel } from './task-values.js';

/** A tasks row as SQL returns it: the creation fields plus what the store decides and tracks (its row schema). */
export type { TaskRow, TaskTextRow } from '../db/task-sql.js';
export * from './task-values.js';

/**
 * The row a create writes: the input plus what the store decides, as the insert stores it (status pending,
 * no slot, version 1, created and updated now). `sort_order` is a placeholder until the insert computes it.
 */
export function newTaskRow(
  owner: { tenantId: string; userId: string },
  input: NewTask,
  decided: { id: string; depth: number },
  now: Date,
): TaskRow {
  return {
    ...input,
    id: decided.id,
    tenant_id: owner.tenantId,
    user_id: owner.userId,
    depth: decided.depth,
    sort_order: 0,
    status: 'pending',
    chosen_slot_start: null,
    chosen_slot_end: null,
    completed_at: null,
    created_at: now,
    updated_at: now,
    version: 1,
    recurrence: null,
    series_id: null,
    occurrence_date: null,
  };
}

export const TASK_DEFAULTS = {
  priority: 3,
  duration_min: 30,
  reminder_channels: ['inapp'] as ReminderChannel[],
  reminder_offset_min: 10,
};

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));

/**
 * `date.toISOString()` for years 1000-9999, written from the UTC fields: a tree of 500 tasks formats 1,000+
 * timestamps per answer and V8's toISOString was the costliest call of that path. Other years
 * (and invalid dates) take toISOString itself.
 */
export function isoTimestamp(date: Date): string {
  const year = date.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) return date.toISOString();
  const ms = date.getUTCMilliseconds();
  return `${year}-${TWO_DIGITS[date.getUTCMonth() + 1]}-${TWO_DIGITS[date.getUTCDate()]}T${
    TWO_DIGITS[date.getUTCHours()]
  }:${TWO_DIGITS[date.getUTCMinutes()]}:${TWO_DIGITS[date.getUTCSeconds()]}.${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
}

/** PostgreSQL's text of a timestamptz in UTC (DateStyle ISO): `2026-11-25 17:06:01.789123+00`. */
const PG_UTC_TEXT = /^([1-9]\d{3}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;

/**
 * `isoTimestamp(new Date(text))` for a timestamptz as the read pools return it (text), without the Date: a tree
 * answer built on a miss formats up to 7 timestamps per task. Milliseconds are truncated as Date parsing
 * truncates them; any other shape (another offset, DateStyle or year) goes through Date as before.
 */
export function isoFromPgText(text: string): string {
  const parts = PG_UTC_TEXT.exec(text);
  if (!parts) return isoTimestamp(new Date(text));
  return `${parts[1]}T${parts[2]}.${`${parts[3] ?? ''}000`.slice(0, 3)}Z`;
}

const isoOf = (value: Date | string) => (typeof value === 'string' ? isoFromPgText(value) : isoTimestamp(value));
const iso = (value: Date | string | null) => (value === null ? null : isoOf(value));

/** RoutineTaskRead of the contract, from a row with Dates or with PostgreSQL's text timestamps. */
export function toTaskRead(row: TaskRow | TaskTextRow) {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    user_id: row.user_id,
    parent_task_id: row.parent_task_id,
    depth: row.depth,
    sort_order: row.sort_order,
    title: row.title,
    description: row.description,
    raw_input: row.raw_input,
    status: row.status,
    priority: row.priority,
    duration_min: row.duration_min,
    deadline_at: iso(row.deadline_at),
    earliest_start_at: iso(row.earliest_start_at),
    reminder_channels: row.reminder_channels,
    reminder_offset_min: row.reminder_offset_min,
    tags: row.tags,
    chosen_slot_start: iso(row.chosen_slot_start),
    chosen_slot_end: iso(row.chosen_slot_end),
    completed_at: iso(row.completed_at),
    created_at: isoOf(row.created_at),
    updated_at: isoOf(row.updated_at),
    recurrence: row.recurrence,
    series_id: row.series_id,
    occurrence_date: row.occurrence_date,
  };
}
export type TaskRead = ReturnType<typeof toTaskRead>;

/** What the events carry (the catalog's TaskSnapshot). */
export function toSnapshot(row: TaskRow): TaskSnapshot {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    user_id: row.user_id,
    parent_task_id: row.parent_task_id,
    title: row.title,
    description: row.description,
    status: row.status,
    priority: row.priority,
    duration_min: row.duration_min,
    tags: row.tags,
    deadline_at: iso(row.deadline_at),
    chosen_slot_start: iso(row.chosen_slot_start),
    chosen_slot_end: iso(row.chosen_slot_end),
    reminder_channels: row.reminder_channels,
    reminder_offset_min: row.reminder_offset_min,
    updated_at: row.updated_at.toISOString(),
    version: Number(row.version),
  };
}
