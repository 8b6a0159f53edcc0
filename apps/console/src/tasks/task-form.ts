import type { Schemas } from '@routinely/api-client';
import { Temporal } from 'temporal-polyfill';
import type { Task } from '../api/queries.js';

export type TaskPatch = Schemas['TaskPatch'];
type Channel = Task['reminder_channels'][number];

/** What the drawer's form edits, as the inputs hold it (local wall-clock date-times, tags as text). */
export interface TaskForm {
  title: string;
  description: string;
  priority: number;
  duration_min: number;
  deadline: string;
  earliest: string;
  tags: string;
  reminder_offset_min: number;
  reminder_channels: Channel[];
}

/** An instant as the value of a datetime-local input, in the settings timezone. */
export function localInput(iso: string | null, timeZone: string): string {
  if (!iso) return '';
  return Temporal.Instant.from(iso).toZonedDateTimeISO(timeZone).toPlainDateTime().toString({ smallestUnit: 'minute' });
}

/** A datetime-local value read in the settings timezone (not the browser's), as an ISO instant. */
export function fromLocalInput(value: string, timeZone: string): string | null {
  if (!value) return null;
  return Temporal.PlainDateTime.from(value)
    .toZonedDateTime(timeZone, { disambiguation: 'compatible' })
    .toInstant()
    .toString();
}

export function formOf(task: Task, timeZone: string): TaskForm {
  return {
    title: task.title,
    description: task.description ?? '',
    priority: task.priority,
    duration_min: task.duration_min,
    deadline: localInput(task.deadline_at, timeZone),
    earliest: localInput(task.earliest_start_at, timeZone),
    tags: task.tags.join(', '),
    reminder_offset_min: task.reminder_offset_min,
    reminder_channels: task.reminder_channels,
  };
}

/** Only what changed, so a save never rewrites a field someone else changed meanwhile. */
export function patchOf(before: TaskForm, after: TaskForm, timeZone: string): TaskPatch {
  const patch: TaskPatch = {};
  if (after.title !== before.title) patch.title = after.title.trim();
  if (after.description !== before.description) patch.description = after.description || null;
  if (after.priority !== before.priority) patch.priority = after.priority;
  if (after.duration_min !== before.duration_min) patch.duration_min = after.duration_min;
  if (after.deadline !== before.deadline) patch.deadline_at = fromLocalInput(after.deadline, timeZone);
  if (after.earliest !== before.earliest) patch.earliest_start_at = fromLocalInput(after.earliest, timeZone);
  if (after.tags !== before.tags) {
    patch.tags = after.tags
      .split(',')
      .map((t) => t.trim().replace(/^#/, ''))
      .filter(Boolean);
  }
  if (after.reminder_offset_min !== before.reminder_offset_min) patch.reminder_offset_min = after.reminder_offset_min;
  if (after.reminder_channels.join() !== before.reminder_channels.join())
    patch.reminder_channels = after.reminder_channels;
  return patch;
}
