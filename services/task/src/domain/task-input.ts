import { nameSchemas } from '@routinely/platform';
import { parseDayWindow, parseRecurrenceRule, taskFieldRules as sharedFieldRules } from '@routinely/scheduling';
import { isSupportedDate, SUPPORTED_DATES, TimeInputError } from '@routinely/time';
import { z } from 'zod';
import { type NewTask, REMINDER_CHANNELS, TASK_DEFAULTS } from './task-model.js';

const longText = z.string().max(10_000);
/** Repeated channels and tags are dropped (on create and on update alike). */
export const unique = <T>(items: T[]) => [...new Set(items)];

/**
 * The limits of each editable field, once: create adds defaults, a patch makes every field optional. The fields
 * capture from text fills come from the scheduling package, whose parsers answer only what these accept.
 */
export const taskFieldRules = {
  ...sharedFieldRules,
  description: longText.nullable(),
  raw_input: longText.nullable(),
  reminder_channels: z.array(z.enum(REMINDER_CHANNELS)).max(3),
  reminder_offset_min: z.number().int().min(0).max(10_080),
};
const rules = taskFieldRules;

/** A local date a routine input names (`YYYY-MM-DD`, years 1970..9999): one schema for every such field. */
export const localDateIn = () => z.iso.date({ abort: true }).refine(isSupportedDate, `must be ${SUPPORTED_DATES}`);

const wallTime = z.string().describe('local wall-clock time HH:MM (end may be 24:00)');

/**
 * A routine's recurrence (contract "routines"). The rule and the window are checked by the scheduling package's
 * parsers, so the 422 names `recurrence.rule` or `recurrence.window.end` exactly as the contract asks.
 */
export const recurrenceInput = z
  .object({
    rule: z
      .string()
      .describe('an RFC 5545 RRULE value without the RRULE: prefix, at most one occurrence a day')
      .meta({ examples: ['FREQ=DAILY', 'FREQ=WEEKLY;BYDAY=MO,TH', 'FREQ=MONTHLY;BYDAY=-1FR'] }),
    starts_on: localDateIn().optional().describe("first local date (default: today in the user's timezone)"),
    until: localDateIn().nullable().optional().describe('last local date, inclusive'),
    window: z
      .object({ start: wallTime, end: wallTime })
      .nullable()
      .optional()
      .describe('where an occurrence belongs on its date (default: the whole day)'),
    horizon_days: z.number().int().min(1).max(60).default(14),
    auto_schedule: z.boolean().default(true),
  })
  .superRefine((value, ctx) => {
    const refuse = (error: unknown) => {
      if (!(error instanceof TimeInputError)) throw error;
      ctx.addIssue({ code: 'custom', path: error.field.split('.'), message: error.message.replace(/^[^:]+: /, '') });
    };
    try {
      parseRecurrenceRule(value.rule);
    } catch (error) {
      refuse(error);
    }
    try {
      parseDayWindow(value.window);
    } catch (error) {
      refuse(error);
    }
    if (value.until && value.starts_on && value.until < value.starts_on) {
      ctx.addIssue({ code: 'custom', path: ['until'], message: 'must not be before starts_on' });
    }
  });
export type RecurrenceInput = z.output<typeof recurrenceInput>;

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

/**
 * The HTTP create: a task's fields, a routine's `recurrence` (root tasks only), and `title` optional when
 * `raw_input` is given (the builtin capture parser fills what the body leaves out).
 */
export const taskCreateBody = z
  .object({
    ...taskCreateFields,
    title: rules.title.optional().describe('required unless raw_input is given'),
    // No defaults here: a field the body leaves out may come from raw_input (`withCreateDefaults` applies them).
    priority: rules.priority.optional().describe('1 = highest .. 5 = lowest (default 3)'),
    duration_min: rules.duration_min.optional().describe(`default ${TASK_DEFAULTS.duration_min}`),
    tags: rules.tags.transform(unique).optional(),
    recurrence: recurrenceInput.nullable().optional().describe('makes the task a routine (root tasks only)'),
  })
  .superRefine((value, ctx) => {
    if (value.recurrence && value.parent_task_id) {
      ctx.addIssue({ code: 'custom', path: ['recurrence'], message: 'only a root task can recur' });
    }
    if (value.title === undefined && !value.raw_input) {
      ctx.addIssue({ code: 'custom', path: ['title'], message: 'title is required unless raw_input is given' });
    }
  });
export type TaskCreateBody = z.output<typeof taskCreateBody>;

/** A create body (raw_input's parse merged in) with the task defaults applied; the title must exist by now. */
export function withCreateDefaults(body: TaskCreateBody & { title: string }): TaskCreateInput {
  return {
    ...body,
    priority: body.priority ?? TASK_DEFAULTS.priority,
    duration_min: body.duration_min ?? TASK_DEFAULTS.duration_min,
    tags: body.tags ?? [],
  };
}

/** An optional instant of a request (ISO text) as a Date. */
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
  TaskCreate: taskCreateBody,
  Recurrence: recurrenceInput,
});
