import type { Sql } from '@routinely/db';
import type { EventEnvelope } from '@routinely/events';
import { type Clock, fieldError, notFound, type Owner } from '@routinely/platform';
import { RECURRENCE_MAX_PAST_DAYS } from '@routinely/scheduling';
import { Temporal } from '@routinely/time';
import { v7 as uuidv7 } from 'uuid';
import {
  countRoutinesLocked,
  deleteSeriesFill,
  futureOpenOccurrences,
  openOccurrencesOfOwner,
  saveRecurrence,
  templateRootOf,
} from '../../db/series-sql.js';
import { findTask, insertTasks, lockOwnerTree, saveTask, subtreeRows } from '../../db/task-sql.js';
import { emitTaskEvent, eventForChange } from '../events.js';
import { applyStatusAndSlot } from '../scheduling.js';
import type { RecurrenceInput } from '../task-input.js';
import type { NewTask, StoredRecurrence, TaskRow } from '../task-model.js';
import { type FillContext, fill, fillContext, type PlacementBlock, requestPlacement } from './series-fill.js';
import { horizonEnd, occurrenceBounds, ruleDates, storedRecurrence } from './series-plan.js';
import { deleteTrees, resyncSteps, unscheduleSteps } from './step-resync.js';

/**
 * Edits of a series that reach its occurrences: creating it, setting, changing or removing its recurrence,
 * deleting it and following its owner's timezone. Each runs in the caller's transaction; the events go to
 * `outbox`.
 */

/**
 * Routines one user may have at once (a series with a recurrence; removing the recurrence or the task frees
 * one). Each is filled hourly and placed by the scheduler's runs; the bound keeps one user's share of that work
 * bounded (600 routines of one user once slowed every other user's runs; ADR 055). Documented on POST/PATCH /tasks.
 */
export const MAX_ROUTINES_PER_USER = 100;
/** How far back `starts_on` may reach: past dates are created (as missed history) on creation; capture keeps to it. */
const MAX_PAST_DAYS = RECURRENCE_MAX_PAST_DAYS;
/** Fields of the series root that its future open occurrences follow. */
const CARRIED_FIELDS = [
  'title',
  'description',
  'priority',
  'duration_min',
  'tags',
  'reminder_channels',
  'reminder_offset_min',
] as const;

/** The stored recurrence of a create or PATCH; `starts_on` may reach back at most MAX_PAST_DAYS. */
function stored(input: RecurrenceInput, previous: StoredRecurrence | null, today: Temporal.PlainDate) {
  const startsOn = input.starts_on ?? previous?.starts_on;
  if (input.starts_on && Temporal.PlainDate.compare(input.starts_on, today.subtract({ days: MAX_PAST_DAYS })) < 0) {
    throw fieldError(['body', 'recurrence', 'starts_on'], `may be at most ${MAX_PAST_DAYS} days before today`);
  }
  return storedRecurrence({ ...input, starts_on: startsOn }, today);
}

/** 422 naming `recurrence` when the owner already has MAX_ROUTINES_PER_USER routines. */
async function refuseBeyondLimit(sql: Sql, owner: Owner): Promise<void> {
  if ((await countRoutinesLocked(sql, owner)) >= MAX_ROUTINES_PER_USER) {
    throw fieldError(
      ['body', 'recurrence'],
      `a user has at most ${MAX_ROUTINES_PER_USER} routines: remove one (or its recurrence) first`,
      'routine_limit',
    );
  }
}

/** Creates the series root and its occurrences through the horizon. */
export async function createSeries(
  sql: Sql,
  outbox: EventEnvelope[],
  owner: Owner,
  input: NewTask,
  recurrence: RecurrenceInput,
  clock: Clock,
): Promise<TaskRow> {
  await lockOwnerTree(sql, owner);
  await refuseBeyondLimit(sql, owner);
  const context = await fillContext(sql, owner, clock);
  const next = stored(recurrence, null, context.today);
  const [root] = await insertTasks(sql, owner, [{ ...input, id: uuidv7(), depth: 1, sort_order: null }], context.now);
  if (!root) throw new Error('task insert returned no row');
  const series = await saveRecurrence(sql, owner, root.id, next);
  emitTaskEvent(outbox, 'taskCreated', series, context.now);
  await fill(sql, outbox, series, Temporal.PlainDate.from(next.starts_on), context);
  return series;
}

/**
 * A PATCH's `recurrence`, under the task's row lock before the row is written: checked (only a root task that is
 * not part of another routine recurs; a new routine counts towards the limit) and made the rule the series
 * stores, with the fill context the edit then goes on with.
 */
export async function plannedRecurrence(
  sql: Sql,
  owner: Owner,
  before: TaskRow,
  recurrence: RecurrenceInput | null,
  clock: Clock,
): Promise<{ recurrence: StoredRecurrence | null; context: FillContext }> {
  if (recurrence && (before.parent_task_id !== null || before.series_id !== null)) {
    throw fieldError(['body', 'recurrence'], 'only a root task that is not part of another routine can recur');
  }
  if (recurrence && !before.recurrence) await refuseBeyondLimit(sql, owner);
  const context = await fillContext(sql, owner, clock);
  return { recurrence: recurrence && stored(recurrence, before.recurrence, context.today), context };
}

/**
 * After a PATCH of a series (or of a task it makes one) is saved, with its recurrence (`plannedRecurrence`):
 * carries the edit to the future open occurrences (history never changes), or fills a new routine.
 */
export async function editSeries(
  sql: Sql,
  outbox: EventEnvelope[],
  owner: Owner,
  edit: { before: TaskRow; saved: TaskRow; context?: FillContext | undefined },
  clock: Clock,
): Promise<TaskRow> {
  const { before, saved: series } = edit;
  const context = edit.context ?? (await fillContext(sql, owner, clock));
  if (!before.recurrence) {
    if (!series.recurrence) return series;
    const template = await unscheduleSteps(sql, outbox, owner, series.id, context.now);
    await fill(sql, outbox, series, Temporal.PlainDate.from(series.recurrence.starts_on), context, template);
    return series;
  }
  await carryEdit(sql, outbox, before, series, context);
  return series;
}

/**
 * Deletes a task; a series takes its future open occurrences with it and leaves its history. The task's row
 * lock is what every fill of a series holds (a recurrence PATCH's, the worker's): a DELETE waits for a fill in
 * progress and then sees the task as it left it, so a task that just became a series goes as one, with
 * everything the fill wrote.
 */
export async function removeTask(sql: Sql, outbox: EventEnvelope[], owner: Owner, id: string, clock: Clock) {
  await lockOwnerTree(sql, owner);
  const task = await findTask(sql, owner, id, true);
  if (!task) throw notFound('Task');
  if (task.recurrence) {
    const context = await fillContext(sql, owner, clock);
    const future = await futureOpenOccurrences(sql, owner, id, context.today.toString(), context.now);
    await deleteTrees(sql, outbox, owner, [...future.map((row) => row.id), id], context.now);
  } else {
    const template = task.parent_task_id !== null ? await templateRootOf(sql, owner, id) : undefined;
    await deleteTrees(sql, outbox, owner, [id], clock.now());
    if (template) await resyncSteps(sql, outbox, owner, template.id, clock);
  }
}

/**
 * The user's timezone changed (their settings, or their profile's while no settings zone is set): every open
 * occurrence dated today or later (in the new zone) whose slot has not started moves to its window in the new
 * zone, loses its slot (and its steps theirs: the reminders go with them) and, for `auto_schedule`, is placed
 * again. Done, skipped and past occurrences keep theirs. Runs in the caller's transaction (the consumer's, with
 * its inbox row) under the owner's tree lock; the events go to `outbox`.
 */
export async function followTimezone(sql: Sql, outbox: EventEnvelope[], owner: Owner, clock: Clock): Promise<void> {
  await lockOwnerTree(sql, owner);
  const context = await fillContext(sql, owner, clock);
  const open = await openOccurrencesOfOwner(sql, owner, context.today.toString(), context.now);
  const bySeries = new Map<string, TaskRow[]>();
  for (const row of open)
    bySeries.set(row.series_id as string, [...(bySeries.get(row.series_id as string) ?? []), row]);
  for (const [seriesId, occurrences] of bySeries) {
    const series = await findTask(sql, owner, seriesId);
    if (!series?.recurrence) continue;
    const moved: PlacementBlock[] = [];
    for (const occurrence of occurrences) {
      const bounds = occurrenceBounds(series.recurrence, occurrence.occurrence_date as string, context.timezone);
      const sameBounds =
        occurrence.earliest_start_at?.getTime() === bounds.earliestStartAt.getTime() &&
        occurrence.deadline_at?.getTime() === bounds.deadlineAt.getTime();
      if (sameBounds) continue;
      const unplaced = applyStatusAndSlot(occurrence, { chosen_slot_start: null, chosen_slot_end: null }, context.now);
      const saved = await saveTask(sql, {
        ...unplaced,
        earliest_start_at: bounds.earliestStartAt,
        deadline_at: bounds.deadlineAt,
        updated_at: context.now,
      });
      emitTaskEvent(outbox, eventForChange(occurrence, saved), saved, context.now);
      const steps = (await subtreeRows(sql, owner, occurrence.id)).filter((row) => row.id !== occurrence.id);
      for (const step of steps.filter((row) => row.chosen_slot_start !== null)) {
        const cleared = applyStatusAndSlot(step, { chosen_slot_start: null, chosen_slot_end: null }, context.now);
        const savedStep = await saveTask(sql, { ...cleared, updated_at: context.now });
        emitTaskEvent(outbox, eventForChange(step, savedStep), savedStep, context.now);
      }
      moved.push({ ids: [occurrence.id, ...steps.map((row) => row.id)], deadlineAt: bounds.deadlineAt });
    }
    requestPlacement(outbox, series, moved, context.now);
  }
}

/**
 * Carries a series edit to its future open occurrences: the root's own fields, then a changed recurrence (dates
 * that no longer match go, a changed window moves the bounds, new dates come). History is never touched.
 */
async function carryEdit(sql: Sql, outbox: EventEnvelope[], before: TaskRow, series: TaskRow, context: FillContext) {
  const owner = { tenantId: series.tenant_id, userId: series.user_id };
  const future = await futureOpenOccurrences(sql, owner, series.id, context.today.toString(), context.now);
  const next = series.recurrence;
  if (!next) {
    await deleteTrees(
      sql,
      outbox,
      owner,
      future.map((row) => row.id),
      context.now,
    );
    return deleteSeriesFill(sql, series.id);
  }
  const matching = new Set(ruleDates(next, context.today, horizonEnd(next, context.today)));
  const windowChanged = JSON.stringify(before.recurrence?.window) !== JSON.stringify(next.window);
  const gone = future.filter((row) => !matching.has(row.occurrence_date as string));
  await deleteTrees(
    sql,
    outbox,
    owner,
    gone.map((row) => row.id),
    context.now,
  );
  for (const occurrence of future.filter((row) => matching.has(row.occurrence_date as string))) {
    // A field the occurrence changed on its own (it no longer equals the series' old value) stays its own.
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    const changes = Object.fromEntries(
      CARRIED_FIELDS.filter(
        (field) => !same(before[field], series[field]) && same(occurrence[field], before[field]),
      ).map((field) => [field, series[field]]),
    );
    const bounds = windowChanged
      ? occurrenceBounds(next, occurrence.occurrence_date as string, context.timezone)
      : undefined;
    if (Object.keys(changes).length === 0 && !bounds) continue;
    const saved = await saveTask(sql, {
      ...occurrence,
      ...changes,
      ...(bounds && { earliest_start_at: bounds.earliestStartAt, deadline_at: bounds.deadlineAt }),
      updated_at: context.now,
    });
    emitTaskEvent(outbox, 'taskUpdated', saved, context.now);
  }
  await fill(sql, outbox, series, context.today, context);
}
