import { nameSchemas, timestampOut, uuidOut } from '@routinely/platform';
import { z } from 'zod';
import { taskFieldRules as rules, unique } from '../../domain/task-input.js';
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
});

export const taskListQuery = z.object({
  status: z.enum(TASK_STATUSES).optional(),
  parent_task_id: z.uuid().optional(),
  tag: z.string().min(1).max(50).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

export const moveBody = z.object({ parent_task_id: z.uuid().nullable() });
export const reorderBody = z.object({
  sort_order: z.number().int().min(0).describe('0-based position among the siblings; past the end appends'),
});

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  Task: taskRead,
  TaskTree: taskTreeNode,
  TaskPatch: taskPatchBody,
  TaskMove: moveBody,
  TaskReorder: reorderBody,
});
