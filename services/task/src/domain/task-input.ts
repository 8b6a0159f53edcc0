import { nameSchemas } from '@routinely/platform';
import { z } from 'zod';
import { type NewTask, REMINDER_CHANNELS, TASK_DEFAULTS } from './task-model.js';

const datetime = z.iso.datetime({ offset: true });
const longText = z.string().max(10_000);
/** Repeated channels and tags are dropped (on create and on update alike). */
export const unique = <T>(items: T[]) => [...new Set(items)];

/** The limits of each editable field, once: create adds defaults, a patch makes every field optional. */
export const taskFieldRules = {
  title: z.string().trim().min(1).max(500),
  description: longText.nullable(),
  raw_input: longText.nullable(),
  priority: z.number().int().min(1).max(5),
  duration_min: z.number().int().min(0).max(1440),
  deadline_at: datetime.nullable(),
  earliest_start_at: datetime.nullable(),
  reminder_channels: z.array(z.enum(REMINDER_CHANNELS)).max(3),
  reminder_offset_min: z.number().int().min(0).max(10_080),
  tags: z.array(z.string().trim().min(1).max(50)).max(20),
};
const rules = taskFieldRules;

/** Fields a task is created from (the HTTP body and each import row share them). */
export const taskCreateFields = {
  title: rules.title,
  description: rules.description.optional(),
  raw_input: rules.raw_input.optional(),
  priority: rules.priority.default(TASK_DEFAULTS.priority).describe('1 = highest .. 5 = lowest'),
  duration_min: rules.duration_min.default(TASK_DEFAULTS.duration_min),
  deadline_at: rules.deadline_at.optional(),
  earliest_start_at: rules.earliest_start_at.optional(),
  reminder_channels: rules.reminder_channels.default(TASK_DEFAULTS.reminder_channels).transform(unique),
  reminder_offset_min: rules.reminder_offset_min.default(TASK_DEFAULTS.reminder_offset_min),
  tags: rules.tags.default([]).transform(unique),
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

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  TaskCreate: taskCreateSchema,
});
