import { z } from 'zod';
import { type NewTask, REMINDER_CHANNELS, TASK_DEFAULTS } from './task-model.js';

const datetime = z.iso.datetime({ offset: true });
const text = (max: number) => z.string().max(max);

/** Fields a task is created from (the HTTP body and each import row share them). */
export const taskCreateFields = {
  title: z.string().trim().min(1).max(500),
  description: text(10_000).nullable().optional(),
  raw_input: text(10_000).nullable().optional(),
  priority: z.number().int().min(1).max(5).default(TASK_DEFAULTS.priority).describe('1 = highest .. 5 = lowest'),
  duration_min: z.number().int().min(0).max(1440).default(TASK_DEFAULTS.duration_min),
  deadline_at: datetime.nullable().optional(),
  earliest_start_at: datetime.nullable().optional(),
  reminder_channels: z
    .array(z.enum(REMINDER_CHANNELS))
    .max(3)
    .default(TASK_DEFAULTS.reminder_channels)
    .transform((channels) => [...new Set(channels)]),
  reminder_offset_min: z.number().int().min(0).max(10_080).default(TASK_DEFAULTS.reminder_offset_min),
  tags: z
    .array(z.string().trim().min(1).max(50))
    .max(20)
    .default([])
    .transform((tags) => [...new Set(tags)]),
  parent_task_id: z.uuid().nullable().default(null),
};

export const taskCreateSchema = z.object(taskCreateFields);
export type TaskCreateInput = z.output<typeof taskCreateSchema>;

const dateOrNull = (value: string | null | undefined) => (value ? new Date(value) : null);

export function toNewTask(input: TaskCreateInput): NewTask {
  return {
    title: input.title,
    description: input.description ?? null,
    raw_input: input.raw_input ?? null,
    priority: input.priority,
    duration_min: input.duration_min,
    deadline_at: dateOrNull(input.deadline_at),
    earliest_start_at: dateOrNull(input.earliest_start_at),
    reminder_channels: input.reminder_channels,
    reminder_offset_min: input.reminder_offset_min,
    tags: input.tags,
    parent_task_id: input.parent_task_id,
  };
}
