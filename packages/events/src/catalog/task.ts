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
  /**
   * The task row's change counter, strictly increasing in commit order per task: a consumer applies an event
   * only when its version is newer than the one it stored. Events written before the field existed parse as 0.
   */
  version: z.number().int().nonnegative().default(0),
});
export type TaskSnapshot = z.infer<typeof taskSnapshot>;

const taskData = z.object({ task: taskSnapshot });

/** Events of the task service (subjects task.task.<verb>). Each carries the task as it is after the change. */
export const taskEvents = {
  taskCreated: defineEvent('task.task.created', taskData),
  taskUpdated: defineEvent('task.task.updated', taskData),
  taskScheduled: defineEvent('task.task.scheduled', taskData),
  taskUnscheduled: defineEvent('task.task.unscheduled', taskData),
  taskCompleted: defineEvent('task.task.completed', taskData),
  taskSkipped: defineEvent('task.task.skipped', taskData),
  taskDeleted: defineEvent('task.task.deleted', taskData),
};

/**
 * A routine's fill wrote new occurrences dated today or later whose series asks for `auto_schedule`: the scheduler
 * places them with the builtin solver, all of one fill in one run. Only ids travel; the scheduler reads the tasks.
 */
export const seriesEvents = {
  occurrencesGenerated: defineEvent(
    'task.series.occurrences_generated',
    z.object({
      tenant_id: z.string(),
      user_id: z.string().uuid(),
      series_id: z.string().uuid(),
      task_ids: z.array(z.string().uuid()).min(1),
    }),
  ),
};
