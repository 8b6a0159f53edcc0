import { MINUTES_PER_DAY, wallTimeToInstant } from '@routinely/time';
import * as chrono from 'chrono-node';
import { Temporal } from 'temporal-polyfill';
import { findRecurrencePhrase, PARTS_OF_DAY } from './recurrence-phrases.js';

/**
 * The builtin capture parser: what a line of English says about a task, deterministic and free. Durations,
 * priorities, tags and recurrences are read by the small grammar below; dates and times by chrono-node, relative
 * to now in the user's timezone; the title is what is left. Nothing is created here.
 */
export interface CapturedTask {
  title?: string;
  duration_min?: number;
  priority?: number;
  deadline_at?: string;
  earliest_start_at?: string;
  tags?: string[];
  recurrence?: { rule: string; window?: { start: string; end: string }; starts_on?: string };
}

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

function localDate(component: chrono.ParsedComponents): Temporal.PlainDate {
  return Temporal.PlainDate.from({
    year: component.get('year') ?? 1970,
    month: component.get('month') ?? 1,
    day: component.get('day') ?? 1,
  });
}

export function parseTaskText(text: string, context: { now: Date; timezone: string }): CapturedTask {
  const out: CapturedTask = {};
  // Cut parts are blanked out (same length) so later patterns never see them and indexes stay valid.
  let rest = text;
  const blank = (index: number, length: number) => {
    rest = rest.slice(0, index) + ' '.repeat(length) + rest.slice(index + length);
  };

  const tags = [...rest.matchAll(TAG)];
  if (tags.length > 0) out.tags = [...new Set(tags.map((m) => m[1] ?? ''))];
  for (const m of tags) blank(m.index ?? 0, m[0].length);

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
  for (const found of chrono.parse(rest, reference, { forwardDate: true })) {
    const before = rest.slice(0, found.index);
    const component = found.start;
    const date = localDate(component);
    const hasTime = component.isCertain('hour');
    const deadlineWord = DEADLINE_WORD.exec(before);
    const startWord = START_WORD.exec(before);
    if (recurrence) {
      // With a recurrence a time is where the occurrence belongs, a date where the series starts.
      if (hasTime && !out.recurrence) {
        // "at 7am" starts the window there; "by 5pm" ends it there. Either way it is as long as the task.
        const length = out.duration_min ?? 30;
        const at = minutesOf(component);
        const start = deadlineWord ? Math.max(0, at - length) : at;
        const end = deadlineWord ? at : Math.min(MINUTES_PER_DAY, at + length);
        out.recurrence = { rule: recurrence.rule, window: { start: wallTime(start), end: wallTime(end) } };
      }
      if (component.isCertain('day') || component.isCertain('weekday')) {
        out.recurrence = { ...(out.recurrence ?? { rule: recurrence.rule }), starts_on: date.toString() };
      }
    } else if (deadlineWord && !out.deadline_at) {
      // "by Friday" is due at the end of Friday, "before Friday" at its start.
      const endOfDay = /^before/i.test(deadlineWord[1] ?? '') ? 0 : MINUTES_PER_DAY;
      const minutes = hasTime ? minutesOf(component) : endOfDay;
      out.deadline_at = wallTimeToInstant(context.timezone, date, minutes).toISOString();
    } else if (!out.earliest_start_at) {
      const minutes = hasTime ? minutesOf(component) : 0;
      out.earliest_start_at = wallTimeToInstant(context.timezone, date, minutes).toISOString();
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
  title = title.replace(/^(?:,|-|–|:)\s*/, '').trim();
  if (title.length > 0) out.title = title.slice(0, 500);
  return out;
}
