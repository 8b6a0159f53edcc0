import { z } from 'zod';
import { defineEvent } from '../envelope.js';

/** The task as other services need it: everything a reminder or a schedule read model uses. */
export const taskSnapshot = z.object({
  id: z.string().uuid(),
  tenant_id: z.string(),
  user_id: z.string(),
  parent_task_id: z.string().uuid().nullable(),
  title: z.string(),
  description: z.string().nullable(),
  status: z.enum(['pending', 'scheduled', 'done', 'skipped', 'cancelled']),
  priority: z.number().int(),
  duration_min: z.number().int(),
  tags: z.array(z.string()),
  deadline_at: z.string().nullable(),
  chosen_slot_start: z.string().nullable(),
  chosen_slot_end: z.string().nullable(),
  reminder_channels: z.array(z.enum(['email', 'inapp', 'webhook'])),
  reminder_offset_min: z.number().int(),
  updated_at: z.string(),
});
export type TaskSnapshot = z.infer<typeof taskSnapshot>;

const taskData = z.object({ task: taskSnapshot });

/** Events of the task service (subjects task.task.<verb>). Each carries the task as it is after the change. */
export const taskEvents = {
  created: defineEvent('task.task.created', taskData),
  updated: defineEvent('task.task.updated', taskData),
  scheduled: defineEvent('task.task.scheduled', taskData),
  unscheduled: defineEvent('task.task.unscheduled', taskData),
  completed: defineEvent('task.task.completed', taskData),
  skipped: defineEvent('task.task.skipped', taskData),
  deleted: defineEvent('task.task.deleted', taskData),
};
