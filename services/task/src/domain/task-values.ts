/**
 * The task service's value lists and input shapes: a leaf module, so that the row schemas of db/ can name them
 * while the domain's model imports the row types from db/ (no import cycle).
 */
export const MAX_DEPTH = 5;
export const TASK_STATUSES = ['pending', 'scheduled', 'done', 'skipped', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const REMINDER_CHANNELS = ['email', 'inapp', 'webhook'] as const;
export type ReminderChannel = (typeof REMINDER_CHANNELS)[number];
export const DEP_TYPES = ['finish_to_start', 'start_to_start', 'finish_to_finish', 'start_to_finish'] as const;
export type DepType = (typeof DEP_TYPES)[number];

/** The fields a new task is created from, defaults applied. */
export interface NewTask {
  title: string;
  description: string | null;
  raw_input: string | null;
  priority: number;
  duration_min: number;
  deadline_at: Date | null;
  earliest_start_at: Date | null;
  reminder_channels: ReminderChannel[];
  reminder_offset_min: number;
  tags: string[];
  parent_task_id: string | null;
}

/** A series' recurrence as stored and answered, every default filled in. */
export interface StoredRecurrence {
  rule: string;
  starts_on: string;
  until: string | null;
  window: { start: string; end: string } | null;
  horizon_days: number;
  auto_schedule: boolean;
}
