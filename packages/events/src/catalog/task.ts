import { z } from 'zod';
import { defineEvent } from '../envelope.js';
import { externalEventSnapshot } from './integration.js';

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
 * An import committed with `auto_schedule` asks the scheduler for a background run of its tasks (at most 1,000
 * per run; a larger import publishes one event per run). The task service chooses `run_id` and records the
 * first one on the import job in the commit's transaction; the scheduler creates the run under that id, so a
 * redelivery starts nothing twice and the job names the run before the scheduler has seen the event.
 */
export const taskImportEvents = {
  scheduleRequested: defineEvent(
    'task.import.schedule_requested',
    z.object({ run_id: z.string().uuid(), task_ids: z.array(z.string().uuid()).min(1).max(1_000) }),
  ),
};

/**
 * The task service applied a change of a connected calendar to the unified calendar's copy: published in the
 * transaction that wrote (or, for a late or stale copy, declined) it. `source_event_id` is the integration
 * service's event it answers, which lets that service know its change is readable in the unified calendar;
 * the scheduler checks calendar conflicts against busy time that already holds the change. `event` is the
 * calendar event as the change described it (absent for a whole integration leaving); `applied` is false when
 * the copy held a newer version or the integration had been disconnected.
 */
export const taskCalendarEvents = {
  externalEventApplied: defineEvent(
    'task.external_event.applied',
    z.object({
      source_event_id: z.string().uuid(),
      change: z.enum(['upserted', 'deleted', 'integration_revoked']),
      applied: z.boolean(),
      integration_id: z.string().uuid(),
      event: externalEventSnapshot.nullable(),
    }),
  ),
};

/**
 * The task service applied (or, being older than its copy, declined) a `scheduler.settings.timezone_changed`
 * (`source_event_id`), in the transaction that did: the scheduler's PATCH /settings/me waits for it, so a routine
 * created right after the answer is in the new zone (read-your-writes without a call back, ADR 029 and 061).
 */
export const taskSettingsEvents = {
  timezoneApplied: defineEvent('task.settings.timezone_applied', z.object({ source_event_id: z.string().uuid() })),
};

/**
 * A routine's fill wrote new occurrences dated today or later whose series asks for `auto_schedule`: the scheduler
 * places them with the builtin solver in one queued run under `run_id` (chosen by the task service, so a
 * redelivery queues nothing twice). Only ids travel; the run reads the tasks. `window_end` is the latest deadline
 * among the occurrences (the end of the last one's window): the run's window reaches it, so an occurrence the
 * hourly fill adds at the end of the horizon is inside it (ADR 055). A request without it (written before the
 * field existed) gets the default 14-day window.
 */
export const seriesEvents = {
  occurrencesGenerated: defineEvent(
    'task.series.occurrences_generated',
    z.object({
      run_id: z.string().uuid(),
      series_id: z.string().uuid(),
      task_ids: z.array(z.string().uuid()).min(1).max(1_000),
      window_end: z.string().datetime({ offset: true }).optional(),
    }),
  ),
};
