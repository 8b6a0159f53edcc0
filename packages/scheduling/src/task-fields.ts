import { isSupportedDate, LATEST_DATE, type Temporal } from '@routinely/time';
import { z } from 'zod';
import { parseDayWindow, parseRecurrenceRule } from './recurrence.js';

/**
 * What a task's fields may hold, once: `POST /tasks` (and PATCH, and each import row) validates with these rules,
 * and capture from text (the builtin parser and a model's answer alike) answers only fields that pass them, so a
 * parse sent back as a create body, or a `raw_input` the task service reads itself, is always accepted.
 */

/**
 * Instants a task may carry, in UTC: what every layer below (the API's 4-digit years, events, PostgreSQL) holds;
 * local dates (`starts_on`) take the same years (`isSupportedDate` of @routinely/time).
 */
export const TASK_INSTANT_MIN_MS = Date.UTC(1970, 0, 1);
export const TASK_INSTANT_MAX_MS = Date.UTC(10_000, 0, 1) - 1;
/** How far back a routine's `starts_on` may reach: past dates are created (as missed history) on creation. */
export const RECURRENCE_MAX_PAST_DAYS = 366;
export const TASK_TITLE_MAX = 500;
export const TASK_TAG_MAX = 50;
export const TASK_TAGS_MAX = 20;

/**
 * NUL (a text column cannot hold it) and unpaired surrogates (not UTF-8): the platform refuses them in every
 * request (unsafe-text.ts); a model's answer is not a request, so its fields are checked here.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this refuses.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const storable = (text: string) => !UNSTORABLE.test(text);
const STORABLE_MESSAGE = 'must not contain NUL characters or unpaired surrogates';

export const isTaskInstant = (ms: number) => ms >= TASK_INSTANT_MIN_MS && ms <= TASK_INSTANT_MAX_MS;

const instant = z.iso
  .datetime({ offset: true })
  .refine(
    (value) => isTaskInstant(Date.parse(value)),
    'must lie between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z',
  );

/** The limits of each editable field of a task: create adds defaults, a patch makes every field optional. */
export const taskFieldRules = {
  title: z.string().trim().min(1).max(TASK_TITLE_MAX).refine(storable, STORABLE_MESSAGE),
  priority: z.number().int().min(1).max(5),
  duration_min: z.number().int().min(0).max(1440),
  deadline_at: instant.nullable(),
  earliest_start_at: instant.nullable(),
  tags: z.array(z.string().trim().min(1).max(TASK_TAG_MAX).refine(storable, STORABLE_MESSAGE)).max(TASK_TAGS_MAX),
};

function accepts(check: () => unknown): boolean {
  try {
    check();
    return true;
  } catch {
    return false;
  }
}

/** Whether `{ start, end }` is a window of a day (`HH:MM`, start before end; end may be 24:00). */
export const isDayWindow = (window: { start: string; end: string }) => accepts(() => parseDayWindow(window));

/** Whether a routine may start on `date` (`starts_on`) when it is `today` in the user's zone. */
export function startsOnAccepted(date: string, today: Temporal.PlainDate): boolean {
  const earliest = today.subtract({ days: RECURRENCE_MAX_PAST_DAYS }).toString();
  return isSupportedDate(date) && date >= earliest;
}

/**
 * The fields capture from text answers (`POST /tasks/parse` `fields`), each one a value `POST /tasks` accepts.
 * A routine's `starts_on` also depends on the user's today: `capturedTaskSchema(today)` checks it too.
 */
export const capturedTaskFields = z.object({
  title: taskFieldRules.title.optional(),
  duration_min: z.number().int().min(1).max(1440).optional(),
  priority: taskFieldRules.priority.optional(),
  deadline_at: instant.optional(),
  earliest_start_at: instant.optional(),
  tags: taskFieldRules.tags.optional(),
  recurrence: z
    .object({
      rule: z.string().refine((rule) => accepts(() => parseRecurrenceRule(rule)), 'not a rule of the contract'),
      window: z
        .object({ start: z.string(), end: z.string() })
        .refine(isDayWindow, 'not a window (HH:MM, start before end)')
        .optional(),
      starts_on: z.iso.date().optional(),
    })
    .optional(),
});
export type CapturedTask = z.output<typeof capturedTaskFields>;

export function capturedTaskSchema(today: Temporal.PlainDate) {
  return capturedTaskFields.superRefine((fields, ctx) => {
    const startsOn = fields.recurrence?.starts_on;
    if (startsOn !== undefined && !startsOnAccepted(startsOn, today)) {
      ctx.addIssue({
        code: 'custom',
        path: ['recurrence', 'starts_on'],
        message: `must lie between ${RECURRENCE_MAX_PAST_DAYS} days ago and ${LATEST_DATE}`,
      });
    }
  });
}
