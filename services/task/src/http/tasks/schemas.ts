import { nameSchemas, timestampOut, uuidOut } from '@routinely/platform';
import { z } from 'zod';
import { recurrenceInput, taskFieldRules as rules, unique } from '../../domain/task-input.js';
import { REMINDER_CHANNELS, TASK_STATUSES } from '../../domain/task-model.js';

const datetimeIn = z.iso.datetime({ offset: true });

export const taskIdParams = z.object({ task_id: z.uuid() });

/** RoutineTaskRead. */
export const taskRead = z.object({
  id: z.uuid(),
  tenant_id: uuidOut(),
  user_id: uuidOut(),
  parent_task_id: z.uuid().nullable(),
  depth: z.number().int().min(1).max(5),
  sort_order: z.number().int(),
  title: z.string(),
  description: z.string().nullable(),
  raw_input: z.string().nullable(),
  status: z.enum(TASK_STATUSES),
  priority: z.number().int(),
  duration_min: z.number().int(),
  deadline_at: timestampOut().nullable(),
  earliest_start_at: timestampOut().nullable(),
  reminder_channels: z.array(z.enum(REMINDER_CHANNELS)),
  reminder_offset_min: z.number().int(),
  tags: z.array(z.string()),
  chosen_slot_start: z.string().nullable(),
  chosen_slot_end: z.string().nullable(),
  completed_at: timestampOut().nullable(),
  created_at: timestampOut(),
  updated_at: timestampOut(),
  recurrence: z
    .object({
      rule: z.string(),
      starts_on: z.iso.date(),
      until: z.iso.date().nullable(),
      window: z.object({ start: z.string(), end: z.string() }).nullable(),
      horizon_days: z.number().int(),
      auto_schedule: z.boolean(),
    })
    .nullable()
    .describe("a routine's rule (its series task only)"),
  series_id: z.uuid().nullable().describe('the routine this occurrence, or a step of one, was generated from'),
  occurrence_date: z.iso.date().nullable().describe("an occurrence's local date (on its root)"),
});

const seriesStats = z.object({
  done: z.number().int(),
  skipped: z.number().int(),
  missed: z.number().int().describe('past occurrences neither done nor skipped'),
  current_streak: z.number().int(),
  longest_streak: z.number().int(),
});

/** A single task's answer: a routine's series also carries its statistics. */
export const taskReadWithStats = taskRead.extend({
  series_stats: seriesStats.optional().describe("on a routine's series task only"),
});

export const taskTreeNode = taskRead.extend({
  rolled_up_duration_min: z.number().int().describe("the task's own duration plus its children's roll-ups"),
  get children(): z.ZodArray<typeof taskTreeNode> {
    return z.array(taskTreeNode);
  },
});

export const taskPatchBody = z.object({
  title: rules.title.optional(),
  description: rules.description.optional(),
  raw_input: rules.raw_input.optional(),
  priority: rules.priority.optional(),
  duration_min: rules.duration_min.optional(),
  deadline_at: rules.deadline_at.optional(),
  earliest_start_at: rules.earliest_start_at.optional(),
  reminder_channels: rules.reminder_channels.transform(unique).optional(),
  reminder_offset_min: rules.reminder_offset_min.optional(),
  tags: rules.tags.transform(unique).optional(),
  status: z.enum(TASK_STATUSES).optional(),
  chosen_slot_start: datetimeIn.nullable().optional().describe('manual scheduling; with chosen_slot_end'),
  chosen_slot_end: datetimeIn.nullable().optional().describe('after chosen_slot_start; null clears the slot'),
  recurrence: recurrenceInput
    .nullable()
    .optional()
    .describe('sets or changes the routine (root tasks only); null ends it, keeping its history'),
});

export const taskListQuery = z.object({
  status: z.enum(TASK_STATUSES).optional(),
  parent_task_id: z.uuid().optional(),
  tag: z.string().min(1).max(50).optional(),
  series_id: z.uuid().optional().describe("a routine's occurrences and their steps"),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

export const moveBody = z.object({ parent_task_id: z.uuid().nullable() });
export const reorderBody = z.object({
  sort_order: z.number().int().min(0).describe('0-based position among the siblings; past the end appends'),
});

export const taskList = z.array(taskRead);
export const taskDeleted = z.null().describe('Deleted with its subtree');

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  Task: taskRead,
  TaskTree: taskTreeNode,
  TaskPatch: taskPatchBody,
  SeriesStats: seriesStats,
  TaskMove: moveBody,
  TaskReorder: reorderBody,
});
