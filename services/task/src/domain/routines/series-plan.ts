import { occurrenceWindow, parseDayWindow, parseRecurrenceRule, recurrenceDates } from '@routinely/scheduling';
import { Temporal } from '@routinely/time';
import type { OccurrenceInsert } from '../../db/series-sql.js';
import type { RecurrenceInput } from '../task-input.js';
import type { StoredRecurrence, TaskRow, TaskStatus } from '../task-model.js';

/**
 * The pure half of routines: which dates a series has, what a copy of its subtree for one date looks like, and
 * the streaks of its history. The fill, the series edits and the step resync (series-fill.ts, series-edits.ts,
 * step-resync.ts) decide what exists and write.
 */

/** The recurrence as stored: every default decided (`starts_on` is today in the user's zone when not given). */
export function storedRecurrence(input: RecurrenceInput, today: Temporal.PlainDate): StoredRecurrence {
  return {
    rule: parseRecurrenceRule(input.rule).value,
    starts_on: input.starts_on ?? today.toString(),
    until: input.until ?? null,
    window: input.window ?? null,
    horizon_days: input.horizon_days,
    auto_schedule: input.auto_schedule,
  };
}

/** The series' rule dates in `[from, to]` (inclusive local dates), as `YYYY-MM-DD`. */
export function ruleDates(recurrence: StoredRecurrence, from: Temporal.PlainDate, to: Temporal.PlainDate): string[] {
  return recurrenceDates(parseRecurrenceRule(recurrence.rule), {
    startsOn: Temporal.PlainDate.from(recurrence.starts_on),
    until: recurrence.until ? Temporal.PlainDate.from(recurrence.until) : undefined,
    from,
    to,
  }).map((date) => date.toString());
}

/** The last date a series is kept filled through: today plus its horizon. */
export const horizonEnd = (recurrence: StoredRecurrence, today: Temporal.PlainDate) =>
  today.add({ days: recurrence.horizon_days });

/** Where the occurrence of `date` belongs (the window on that date in the zone, DST-correct). */
export function occurrenceBounds(recurrence: StoredRecurrence, date: string, timezone: string) {
  return occurrenceWindow(Temporal.PlainDate.from(date), parseDayWindow(recurrence.window), timezone);
}

/**
 * The rows of one occurrence: the series' subtree (`subtree[0]` is the series root, parents before children)
 * copied under new ids. The root carries the date and the window's bounds; steps keep their own fields but no
 * instants (those were the series' own), since they run inside the occurrence's block.
 */
export function occurrenceCopy(
  subtree: readonly TaskRow[],
  recurrence: StoredRecurrence,
  date: string,
  context: { timezone: string; rootSortOrder: number; newId: () => string; rootId?: string },
): { rows: OccurrenceInsert[]; copies: Map<string, string> } {
  const [series] = subtree;
  if (!series) throw new Error('a series has at least its root');
  // An existing occurrence keeps its root (`rootId`) when only its steps are copied again.
  const copies = new Map(
    subtree.map((task) => [task.id, task.id === series.id && context.rootId ? context.rootId : context.newId()]),
  );
  const bounds = occurrenceBounds(recurrence, date, context.timezone);
  const rows = subtree.map((task): OccurrenceInsert => {
    const isRoot = task.id === series.id;
    return {
      id: copies.get(task.id) as string,
      parent_task_id: isRoot ? null : (copies.get(task.parent_task_id as string) ?? null),
      depth: task.depth - series.depth + 1,
      sort_order: isRoot ? context.rootSortOrder : task.sort_order,
      row: task,
      series_id: series.id,
      occurrence_date: isRoot ? date : null,
      earliest_start_at: isRoot ? bounds.earliestStartAt : null,
      deadline_at: isRoot ? bounds.deadlineAt : null,
    };
  });
  return { rows, copies };
}

export interface SeriesStats {
  done: number;
  skipped: number;
  missed: number;
  current_streak: number;
  longest_streak: number;
}

/**
 * The contract's series_stats from the occurrences' dates and statuses, oldest first: `missed` counts past
 * occurrences neither done nor skipped; a streak counts consecutive done occurrences, a skip neither breaks nor
 * extends it; today's open occurrence does not break the current streak yet.
 */
export function seriesStats(history: readonly { occurrence_date: string; status: TaskStatus }[], today: string) {
  const stats: SeriesStats = { done: 0, skipped: 0, missed: 0, current_streak: 0, longest_streak: 0 };
  let streak = 0;
  for (const { occurrence_date: date, status } of history) {
    if (status === 'done') {
      stats.done += 1;
      streak += 1;
      stats.longest_streak = Math.max(stats.longest_streak, streak);
    } else if (status === 'skipped') {
      stats.skipped += 1;
    } else if (date < today) {
      stats.missed += 1;
      streak = 0;
    }
  }
  stats.current_streak = streak;
  return stats;
}
