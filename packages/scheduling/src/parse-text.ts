import { localDateOf, MINUTES_PER_DAY, Temporal, wallTimeToInstant } from '@routinely/time';
import * as chrono from 'chrono-node';
import { findRecurrencePhrase, PARTS_OF_DAY } from './recurrence-phrases.js';
import {
  type CapturedTask,
  capturedTaskFields,
  isDayWindow,
  isTaskInstant,
  startsOnAccepted,
  TASK_TAG_MAX,
  TASK_TAGS_MAX,
  TASK_TITLE_MAX,
} from './task-fields.js';

export type { CapturedTask } from './task-fields.js';

/**
 * The builtin capture parser: what a line of English says about a task, deterministic and free. Durations,
 * priorities, tags and recurrences are read by the small grammar below; dates and times by chrono-node, relative
 * to now in the user's timezone; the title is what is left. Nothing is created here.
 */
const TAG = /(?<=^|\s)#([\p{L}\p{N}_-]{1,50})/gu;
const PRIORITY = /(?<=^|\s)(?:p([1-5])|!([1-5])|priority ([1-5]))(?=\s|$|[,.;])/i;
/** "1h30", "1h 30m", "for 2 hours", "90 min", "1.5h", "half an hour"; never "in 2 hours" (a date). */
const DURATIONS: [RegExp, (m: RegExpExecArray) => number][] = [
  [
    /(?<!\bin )\b(?:for )?(\d{1,2})\s?h(?:ours?|rs?)?\s?(\d{1,2})\s?(?:m|mins?|minutes?)?\b/i,
    (m) => hours(m[1]) + Number(m[2]),
  ],
  [/(?<!\bin )\b(?:for )?(\d{1,2}(?:\.\d{1,2})?)\s?(?:h|hrs?|hours?)\b/i, (m) => hours(m[1])],
  [/(?<!\bin )\b(?:for )?(\d{1,4})\s?(?:m|mins?|minutes?)\b/i, (m) => Number(m[1])],
  [/(?<!\bin )\b(?:for )?(?:half an hour|30 ?min)\b/i, () => 30],
  [/(?<!\bin )\b(?:for )?an hour\b/i, () => 60],
];
const PART_OF_DAY = /\b(?:in the )?(morning|afternoon|evening|night)s?\b/i;
const DEADLINE_WORD = /\b(by|before|due(?: on| by)?|until|no later than)(?:\s+the)?\s*$/i;
const START_WORD = /\b(starting|from|beginning)\s*$/i;
const DANGLING = /(?:\s|^)(?:at|on|by|for|due|before|from|starting|in|and|,|-|–)+\s*$/i;

function hours(value: string | undefined): number {
  return Math.round(Number(value) * 60);
}

const pad = (n: number) => String(n).padStart(2, '0');
const wallTime = (minutes: number) =>
  minutes >= MINUTES_PER_DAY ? '24:00' : `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;

/** The user's wall clock now, written as if it were UTC: chrono then reads "tomorrow" in the user's day. */
function wallClockAsUtc(now: Date, timezone: string): Date {
  const wall = Temporal.Instant.fromEpochMilliseconds(now.getTime()).toZonedDateTimeISO(timezone).toPlainDateTime();
  return new Date(Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second));
}

function minutesOf(component: chrono.ParsedComponents): number {
  return (component.get('hour') ?? 0) * 60 + (component.get('minute') ?? 0);
}

/** The component's local date, or undefined when its year lies outside what a task may carry (1970..9999). */
function localDate(component: chrono.ParsedComponents): Temporal.PlainDate | undefined {
  const year = component.get('year') ?? 1970;
  // A day either side of the range still reaches it in some zone; Temporal itself stops at year 275760.
  if (year < 1969 || year > 10_000) return undefined;
  return Temporal.PlainDate.from({ year, month: component.get('month') ?? 1, day: component.get('day') ?? 1 });
}

/** The instant as the API writes it, or undefined when a task cannot carry it. */
function taskInstant(timezone: string, date: Temporal.PlainDate, minutes: number): string | undefined {
  const at = wallTimeToInstant(timezone, date, minutes);
  return isTaskInstant(at.getTime()) ? at.toISOString() : undefined;
}

/** A `{ start, end }` window when it is one (start before end), else undefined. */
function windowOf(start: number, end: number): { start: string; end: string } | undefined {
  const window = { start: wallTime(start), end: wallTime(end) };
  return isDayWindow(window) ? window : undefined;
}

/** At most `max` UTF-16 units, never half of a surrogate pair. */
function cut(text: string, max: number): string {
  const head = text.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(head) ? head.slice(0, -1) : head;
}

export function parseTaskText(text: string, context: { now: Date; timezone: string }): CapturedTask {
  const out: CapturedTask = {};
  // Cut parts are blanked out (same length) so later patterns never see them and indexes stay valid.
  let rest = text;
  const blank = (index: number, length: number) => {
    rest = rest.slice(0, index) + ' '.repeat(length) + rest.slice(index + length);
  };

  // A tag a task could not carry (over 50 UTF-16 units, or past the 20th) stays in the title.
  const tags = new Set<string>();
  for (const m of rest.matchAll(TAG)) {
    const tag = m[1] ?? '';
    if (tag.length > TASK_TAG_MAX || (!tags.has(tag) && tags.size >= TASK_TAGS_MAX)) continue;
    tags.add(tag);
    blank(m.index ?? 0, m[0].length);
  }
  if (tags.size > 0) out.tags = [...tags];

  const priority = PRIORITY.exec(rest);
  if (priority) {
    out.priority = Number(priority[1] ?? priority[2] ?? priority[3]);
    blank(priority.index, priority[0].length);
  }

  const recurrence = findRecurrencePhrase(rest);
  if (recurrence) {
    blank(recurrence.index, recurrence.length);
    // "every Sunday evening": the part of the day is the occurrence's window.
    const part = PART_OF_DAY.exec(rest);
    if (part && !recurrence.window) {
      recurrence.window = PARTS_OF_DAY[(part[1] ?? '').toLowerCase()];
      blank(part.index, part[0].length);
    }
  }

  for (const [pattern, minutes] of DURATIONS) {
    const m = pattern.exec(rest);
    if (!m) continue;
    const value = minutes(m);
    if (value > 0 && value <= MINUTES_PER_DAY) out.duration_min = value;
    blank(m.index, m[0].length);
    break;
  }

  const reference = { instant: wallClockAsUtc(context.now, context.timezone), timezone: 0 };
  const today = localDateOf(context.now, context.timezone);
  for (const found of chrono.parse(rest, reference, { forwardDate: true })) {
    const before = rest.slice(0, found.index);
    const component = found.start;
    const date = localDate(component);
    if (!date) continue;
    const hasTime = component.isCertain('hour');
    const deadlineWord = DEADLINE_WORD.exec(before);
    const startWord = START_WORD.exec(before);
    if (recurrence) {
      // With a recurrence a time is where the occurrence belongs, a date where the series starts.
      const startsOn = date.toString();
      const namesDay = component.isCertain('day') || component.isCertain('weekday');
      if (namesDay && !startsOnAccepted(startsOn, today)) continue;
      if (hasTime && !out.recurrence) {
        // "at 7am" starts the window there; "by 5pm" ends it there. Either way it is as long as the task.
        const length = out.duration_min ?? 30;
        const at = minutesOf(component);
        const start = deadlineWord ? Math.max(0, at - length) : at;
        const end = deadlineWord ? at : Math.min(MINUTES_PER_DAY, at + length);
        const window = windowOf(start, end);
        if (window) out.recurrence = { rule: recurrence.rule, window };
        else if (!namesDay) continue;
      }
      if (namesDay) out.recurrence = { ...(out.recurrence ?? { rule: recurrence.rule }), starts_on: startsOn };
    } else if (deadlineWord && !out.deadline_at) {
      // "by Friday" is due at the end of Friday, "before Friday" at its start.
      const endOfDay = /^before/i.test(deadlineWord[1] ?? '') ? 0 : MINUTES_PER_DAY;
      const deadline = taskInstant(context.timezone, date, hasTime ? minutesOf(component) : endOfDay);
      if (!deadline) continue;
      out.deadline_at = deadline;
    } else if (!out.earliest_start_at) {
      const start = taskInstant(context.timezone, date, hasTime ? minutesOf(component) : 0);
      if (!start) continue;
      out.earliest_start_at = start;
    } else {
      continue;
    }
    const word = deadlineWord ?? startWord;
    const from = word ? word.index : found.index;
    blank(from, found.index + found.text.length - from);
  }
  if (recurrence && !out.recurrence) {
    out.recurrence = { rule: recurrence.rule, ...(recurrence.window ? { window: recurrence.window } : {}) };
  } else if (recurrence?.window && out.recurrence && !out.recurrence.window) {
    out.recurrence.window = recurrence.window;
  }

  let title = rest.replace(/\s+/g, ' ').trim();
  while (DANGLING.test(title)) title = title.replace(DANGLING, '').trim();
  title = cut(title.replace(/^(?:,|-|–|:)\s*/, '').trim(), TASK_TITLE_MAX).trim();
  if (title.length > 0) out.title = title;
  return onlyAccepted(out, today);
}

/**
 * The fields `POST /tasks` accepts, each checked by its rule (task-fields.ts). The parser above already keeps
 * to them; this is the one place that says so, and a field that still slipped through is left out, not answered.
 */
function onlyAccepted(fields: CapturedTask, today: Temporal.PlainDate): CapturedTask {
  const rules = capturedTaskFields.shape;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (rules[key as keyof CapturedTask].safeParse(value).success) out[key] = value;
  }
  const startsOn = fields.recurrence?.starts_on;
  if (out.recurrence && startsOn !== undefined && !startsOnAccepted(startsOn, today)) delete out.recurrence;
  return out as CapturedTask;
}
