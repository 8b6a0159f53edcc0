import { type Orm, Sql } from '@routinely/db';
import { type EventEnvelope, enqueue, makeEvent, type OutboxRelay, seriesEvents } from '@routinely/events';
import { type Clock, fieldError, notFound, type Owner } from '@routinely/platform';
import { RECURRENCE_MAX_PAST_DAYS } from '@routinely/scheduling';
import { LATEST_DATE, localDateOf, Temporal } from '@routinely/time';
import { v7 as uuidv7 } from 'uuid';
import { findTimezone } from '../../db/calendar-sql.js';
import {
  claimDueSeries,
  copyDependencies,
  countRoutinesLocked,
  deleteSeriesFill,
  futureOpenOccurrences,
  insertOccurrenceRows,
  type OccurrenceInsert,
  occurrenceDates,
  occurrenceHistory,
  occurrencesBetween,
  openOccurrencesOfOwner,
  type SeriesFill,
  saveRecurrence,
  saveSeriesFill,
  templateRootOf,
} from '../../db/series-sql.js';
import {
  bumpVersions,
  deleteTasks,
  findTask,
  insertTasks,
  lockOwnerTree,
  nextSortOrder,
  saveTask,
  subtreeRows,
  subtreesRows,
} from '../../db/task-sql.js';
import { emitTaskEvent, eventForChange } from '../events.js';
import { applyStatusAndSlot } from '../scheduling.js';
import type { RecurrenceInput } from '../task-input.js';
import type { NewTask, StoredRecurrence, TaskRow } from '../task-model.js';
import { type TaskPatch, type TaskService, writeWithOutbox } from '../tasks.js';
import {
  horizonEnd,
  occurrenceBounds,
  occurrenceCopy,
  ruleDates,
  type SeriesStats,
  seriesStats,
  storedRecurrence,
} from './series-plan.js';

/** A series is filled again at least this often (the contract: at least hourly). */
const SERIES_FILL_INTERVAL_MS = 60 * 60 * 1000;
/**
 * Routines one user may have at once (a series with a recurrence; removing the recurrence or the task frees
 * one). Each is filled hourly and placed by the scheduler's runs; the bound keeps one user's share of that work
 * bounded (600 routines of one user once slowed every other user's runs; ADR 055). Documented on POST/PATCH /tasks.
 */
export const MAX_ROUTINES_PER_USER = 100;
/** The most task ids one placement request (one scheduler run) carries. */
const MAX_IDS_PER_RUN = 1_000;
/** Series one worker fills concurrently, each in its own transaction. */
const FILLS_AT_ONCE = 4;
/** How far back `starts_on` may reach: past dates are created (as missed history) on creation; capture keeps to it. */
const MAX_PAST_DAYS = RECURRENCE_MAX_PAST_DAYS;
/** The longest span `GET /tasks/{id}/occurrences` reads (contract: at most 366 days). */
export const MAX_OCCURRENCE_RANGE_DAYS = 366;
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

/** One occurrence to place: its root's and steps' ids, and the end of its window. */
interface PlacementBlock {
  ids: string[];
  deadlineAt: Date | null;
}

interface FillContext {
  timezone: string;
  today: Temporal.PlainDate;
  now: Date;
}

/**
 * Routines (contract "routines"): a root task with a recurrence is a series; its occurrences are copies of its
 * subtree, one per rule date from `starts_on` through today + `horizon_days`. Every write runs in one
 * transaction with its events; the unique key (series_id, occurrence_date) keeps one occurrence per date whatever
 * runs twice.
 */
export class Routines {
  constructor(
    private readonly orm: Orm,
    private readonly clock: Clock,
    private readonly relay: Pick<OutboxRelay, 'kick'>,
    private readonly tasks: TaskService,
  ) {}

  /** The stored recurrence of a create or PATCH; `starts_on` may reach back at most MAX_PAST_DAYS. */
  private stored(input: RecurrenceInput, previous: StoredRecurrence | null, today: Temporal.PlainDate) {
    const startsOn = input.starts_on ?? previous?.starts_on;
    if (input.starts_on && Temporal.PlainDate.compare(input.starts_on, today.subtract({ days: MAX_PAST_DAYS })) < 0) {
      throw fieldError(['body', 'recurrence', 'starts_on'], `may be at most ${MAX_PAST_DAYS} days before today`);
    }
    return storedRecurrence({ ...input, starts_on: startsOn }, today);
  }

  /** 422 naming `recurrence` when the owner already has MAX_ROUTINES_PER_USER routines. */
  private async refuseBeyondLimit(sql: Sql, owner: Owner): Promise<void> {
    if ((await countRoutinesLocked(sql, owner)) >= MAX_ROUTINES_PER_USER) {
      throw fieldError(
        ['body', 'recurrence'],
        `a user has at most ${MAX_ROUTINES_PER_USER} routines: remove one (or its recurrence) first`,
        'routine_limit',
      );
    }
  }

  private async context(sql: Sql, owner: Owner): Promise<FillContext> {
    const now = this.clock.now();
    const timezone = (await findTimezone(sql, owner)) ?? 'UTC';
    return { timezone, today: localDateOf(now, timezone), now };
  }

  /** Creates the series root and its occurrences through the horizon. */
  async create(owner: Owner, input: NewTask, recurrence: RecurrenceInput): Promise<TaskRow> {
    return writeWithOutbox(this.orm, this.relay, async (sql, outbox) => {
      await lockOwnerTree(sql, owner);
      await this.refuseBeyondLimit(sql, owner);
      const context = await this.context(sql, owner);
      const stored = this.stored(recurrence, null, context.today);
      const [root] = await insertTasks(
        sql,
        owner,
        [{ ...input, id: uuidv7(), depth: 1, sort_order: null }],
        context.now,
      );
      if (!root) throw new Error('task insert returned no row');
      const series = await saveRecurrence(sql, owner, root.id, stored);
      emitTaskEvent(outbox, 'taskCreated', series, context.now);
      await this.fill(sql, outbox, series, Temporal.PlainDate.from(stored.starts_on), context);
      return series;
    });
  }

  /** A plain create; a step added to a routine's template reaches its future open occurrences in the same transaction. */
  createTask(owner: Owner, input: NewTask): Promise<TaskRow> {
    return this.tasks.create(owner, input, async (sql, child) => {
      const outbox: EventEnvelope[] = [];
      await this.resyncSteps(sql, outbox, owner, child.id);
      await enqueue(sql, ...outbox);
    });
  }

  /**
   * A task PATCH. On a series it also sets or removes the recurrence and carries the edit to the future open
   * occurrences (history never changes); on any other task (an occurrence included) it stays local.
   */
  update(owner: Owner, id: string, patch: TaskPatch, recurrence: RecurrenceInput | null | undefined) {
    if (recurrence && (patch.chosen_slot_start || patch.chosen_slot_end)) {
      throw fieldError(['body', 'chosen_slot_start'], "a routine's series is never scheduled: its occurrences are");
    }
    // A task made a routine keeps nothing scheduled (its slot, reminder and feed event go with an unscheduled
    // event): its occurrences are what gets placed.
    const unscheduled = recurrence ? { ...patch, chosen_slot_start: null, chosen_slot_end: null } : patch;
    return this.tasks.update(owner, id, unscheduled, {
      afterSave: async (sql, outbox, before, saved) => {
        if (recurrence === undefined && before.recurrence === null) {
          // A step of a routine's template: its copies in future open occurrences follow.
          if (before.parent_task_id !== null && before.series_id === null) {
            await this.resyncSteps(sql, outbox, owner, id);
          }
          return saved;
        }
        if (recurrence && (before.parent_task_id !== null || before.series_id !== null)) {
          throw fieldError(['body', 'recurrence'], 'only a root task that is not part of another routine can recur');
        }
        if (recurrence && !before.recurrence) await this.refuseBeyondLimit(sql, owner);
        const context = await this.context(sql, owner);
        const next =
          recurrence === undefined
            ? before.recurrence
            : recurrence && this.stored(recurrence, before.recurrence, context.today);
        const series = recurrence === undefined ? saved : await saveRecurrence(sql, owner, id, next);
        if (series !== saved) emitTaskEvent(outbox, 'taskUpdated', series, context.now);
        if (!before.recurrence) {
          if (!next) return series;
          await this.unscheduleSteps(sql, outbox, owner, id, context.now);
          await this.fill(sql, outbox, series, Temporal.PlainDate.from(next.starts_on), context);
          return series;
        }
        await this.carryEdit(sql, outbox, before, series, context);
        return series;
      },
    });
  }

  /** Re-parents a task; a step moved out of or into a routine's template reaches its future open occurrences. */
  move(owner: Owner, id: string, parentId: string | null): Promise<TaskRow> {
    return this.tasks.move(owner, id, parentId, async (sql, outbox, before, saved) => {
      if (before.parent_task_id !== null) await this.resyncSteps(sql, outbox, owner, before.parent_task_id);
      if (saved.parent_task_id !== null) await this.resyncSteps(sql, outbox, owner, saved.id);
    });
  }

  /** Re-orders a task among its siblings; the template's step order reaches its future open occurrences. */
  reorder(owner: Owner, id: string, sortOrder: number): Promise<TaskRow> {
    return this.tasks.reorder(owner, id, sortOrder, async (sql, outbox, _before, saved) => {
      if (saved.parent_task_id !== null) await this.resyncSteps(sql, outbox, owner, saved.id);
    });
  }

  /**
   * Deletes a task; a series takes its future open occurrences with it and leaves its history. The task's row
   * lock is what every fill of a series holds (a recurrence PATCH's, the worker's): a DELETE waits for a fill in
   * progress and then sees the task as it left it, so a task that just became a series goes as one, with
   * everything the fill wrote.
   */
  async remove(owner: Owner, id: string): Promise<void> {
    await writeWithOutbox(this.orm, this.relay, async (sql, outbox) => {
      await lockOwnerTree(sql, owner);
      const task = await findTask(sql, owner, id, true);
      if (!task) throw notFound('Task');
      if (task.recurrence) {
        const context = await this.context(sql, owner);
        const future = await futureOpenOccurrences(sql, owner, id, context.today.toString(), context.now);
        await this.deleteTrees(sql, outbox, owner, [...future.map((row) => row.id), id], context.now);
      } else {
        const template = task.parent_task_id !== null ? await templateRootOf(sql, owner, id) : undefined;
        await this.deleteTrees(sql, outbox, owner, [id], this.clock.now());
        if (template) await this.resyncSteps(sql, outbox, owner, template.id);
      }
    });
  }

  /**
   * The series' occurrences dated `from`..`to` (defaults: 30 days before the user's today, and 90 days after
   * `from`). 404 unless `id` is the owner's series (one that stopped recurring still has its history).
   */
  async occurrences(owner: Owner, id: string, range: { from?: string | undefined; to?: string | undefined }) {
    const sql = Sql.pool(this.orm);
    const series = await findTask(sql, owner, id);
    if (!series || series.series_id !== null || series.parent_task_id !== null) throw notFound('Routine');
    const from = range.from ?? (await this.context(sql, owner)).today.subtract({ days: 30 }).toString();
    const ninetyOn = Temporal.PlainDate.from(from).add({ days: 90 });
    const to = range.to ?? (Temporal.PlainDate.compare(ninetyOn, LATEST_DATE) > 0 ? LATEST_DATE : ninetyOn).toString();
    const span = Temporal.PlainDate.from(from).until(Temporal.PlainDate.from(to)).days;
    if (span < 0 || span > MAX_OCCURRENCE_RANGE_DAYS) {
      throw fieldError(['query', 'to'], `must be from..from + ${MAX_OCCURRENCE_RANGE_DAYS} days`);
    }
    const rows = await occurrencesBetween(sql, owner, id, from, to);
    if (series.recurrence === null && rows.length === 0) throw notFound('Routine');
    return rows;
  }

  /** series_stats of each series among `rows` (by id); other rows have none. */
  async stats(owner: Owner, rows: readonly TaskRow[]): Promise<Map<string, SeriesStats>> {
    const seriesIds = rows.filter((row) => row.recurrence !== null).map((row) => row.id);
    if (seriesIds.length === 0) return new Map();
    const sql = Sql.pool(this.orm);
    const today = (await this.context(sql, owner)).today.toString();
    const history = await occurrenceHistory(sql, owner, seriesIds);
    return new Map(
      seriesIds.map((id) => [
        id,
        seriesStats(
          history.filter((h) => h.series_id === id),
          today,
        ),
      ]),
    );
  }

  /**
   * One pass of the fill worker: fills series that are due, one transaction each, holding the series' fill row
   * (skipped by other replicas) until it commits. Returns how many series it filled.
   */
  async fillDue(maxSeries: number): Promise<number> {
    let filled = 0;
    let drained = false;
    // A few fills at once: each waits on PostgreSQL round trips most of its time (SKIP LOCKED keeps them apart).
    const fillOneAfterAnother = async () => {
      while (!drained && filled < maxSeries) {
        const claimed = await writeWithOutbox(this.orm, this.relay, async (sql, outbox) => {
          const [due] = await claimDueSeries(sql, this.clock.now(), 1);
          if (!due) return false;
          await this.refill(sql, outbox, due);
          return true;
        });
        if (claimed) filled += 1;
        else drained = true;
      }
    };
    await Promise.all(Array.from({ length: FILLS_AT_ONCE }, fillOneAfterAnother));
    return filled;
  }

  private async refill(sql: Sql, outbox: EventEnvelope[], due: SeriesFill) {
    // Read under the series' row lock (claimDueSeries): a series deleted or changed before the claim is seen so.
    const series = await findTask(sql, due, due.seriesId);
    if (!series?.recurrence) return deleteSeriesFill(sql, due.seriesId);
    const context = await this.context(sql, due);
    const next = Temporal.PlainDate.from(due.filledThrough).add({ days: 1 });
    await this.fill(
      sql,
      outbox,
      series,
      Temporal.PlainDate.compare(next, context.today) > 0 ? next : context.today,
      context,
    );
  }

  /**
   * Writes the occurrences of every rule date in `[from, today + horizon]` that has none yet, records how far the
   * series is filled and, for `auto_schedule`, asks the scheduler to place those dated today or later. Callers
   * hold the series' row lock and pass the row read under it (creation, a PATCH, the worker's claim), so a
   * DELETE of the series waits for the fill and then takes what it wrote.
   */
  private async fill(
    sql: Sql,
    outbox: EventEnvelope[],
    series: TaskRow,
    from: Temporal.PlainDate,
    context: FillContext,
  ) {
    const recurrence = series.recurrence as StoredRecurrence;
    const owner = { tenantId: series.tenant_id, userId: series.user_id };
    const to = horizonEnd(recurrence, context.today);
    const existing = await occurrenceDates(sql, series.id);
    const missing = ruleDates(recurrence, from, to).filter((date) => !existing.has(date));
    if (missing.length > 0) {
      const subtree = await subtreeRows(sql, owner, series.id);
      let sortOrder = await nextSortOrder(sql, owner, null);
      const copies = missing.map((date) =>
        occurrenceCopy(subtree, recurrence, date, {
          timezone: context.timezone,
          rootSortOrder: sortOrder++,
          newId: uuidv7,
        }),
      );
      const roots = await insertOccurrenceRows(
        sql,
        owner,
        copies.map((copy) => copy.rows[0] as OccurrenceInsert),
        context.now,
      );
      const rootIds = new Set(roots.map((root) => root.id));
      const kept = copies.filter((copy) => rootIds.has(copy.rows[0]?.id as string));
      const steps = await insertOccurrenceRows(
        sql,
        owner,
        kept.flatMap((copy) => copy.rows.slice(1)),
        context.now,
      );
      await copyDependencies(sql, owner, new Map(kept.flatMap((copy) => [...copy.copies])));
      for (const row of [...roots, ...steps]) emitTaskEvent(outbox, 'taskCreated', row, context.now);
      const today = context.today.toString();
      const upcoming = kept.filter((copy) => (copy.rows[0]?.occurrence_date ?? '') >= today);
      this.requestPlacement(
        outbox,
        series,
        upcoming.map((copy) => ({
          ids: copy.rows.map((row) => row.id),
          deadlineAt: copy.rows[0]?.deadline_at ?? null,
        })),
        context.now,
      );
    }
    const dueAt = new Date(context.now.getTime() + SERIES_FILL_INTERVAL_MS);
    await saveSeriesFill(sql, { ...owner, seriesId: series.id, filledThrough: to.toString() }, dueAt);
  }

  /**
   * The user's timezone changed (their settings, or their profile's while no settings zone is set): every open
   * occurrence dated today or later (in the new zone) whose slot has not started moves to its window in the new
   * zone, loses its slot (and its steps theirs: the reminders go with them) and, for `auto_schedule`, is placed
   * again. Done, skipped and past occurrences keep theirs. Runs in the caller's transaction (the consumer's, with
   * its inbox row) under the owner's tree lock; the events go to `outbox`.
   */
  async followTimezone(sql: Sql, outbox: EventEnvelope[], owner: Owner): Promise<void> {
    await lockOwnerTree(sql, owner);
    const context = await this.context(sql, owner);
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
        const unplaced = applyStatusAndSlot(
          occurrence,
          { chosen_slot_start: null, chosen_slot_end: null },
          context.now,
        );
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
      this.requestPlacement(outbox, series, moved, context.now);
    }
  }

  /**
   * Asks the scheduler to place occurrences (each given as its root's and steps' ids: the run places the root's
   * block with its steps) when the series has `auto_schedule`: one run per at most 1,000 ids, an occurrence never
   * split between runs. Each request carries the latest deadline of its occurrences, the end of the window its
   * run needs (the scheduler caps it). The request is an outbox row of the fill's transaction: it exists exactly
   * when the occurrences do, whatever crashes.
   */
  private requestPlacement(outbox: EventEnvelope[], series: TaskRow, occurrences: PlacementBlock[], at: Date) {
    if (!series.recurrence?.auto_schedule) return;
    const owner = { tenantId: series.tenant_id, userId: series.user_id };
    const runs: { ids: string[]; windowEnd: number }[] = [];
    for (const { ids, deadlineAt } of occurrences) {
      const last = runs.at(-1);
      const end = deadlineAt?.getTime() ?? 0;
      if (last && last.ids.length + ids.length <= MAX_IDS_PER_RUN) {
        last.ids.push(...ids);
        last.windowEnd = Math.max(last.windowEnd, end);
      } else runs.push({ ids: [...ids], windowEnd: end });
    }
    for (const { ids, windowEnd } of runs) {
      const data = {
        run_id: uuidv7(),
        series_id: series.id,
        task_ids: ids,
        ...(windowEnd > 0 ? { window_end: new Date(windowEnd).toISOString() } : {}),
      };
      outbox.push(makeEvent(seriesEvents.occurrencesGenerated, { ...owner, at }, data));
    }
  }

  /**
   * Carries a series edit to its future open occurrences: the root's own fields, then a changed recurrence (dates
   * that no longer match go, a changed window moves the bounds, new dates come). History is never touched.
   */
  private async carryEdit(sql: Sql, outbox: EventEnvelope[], before: TaskRow, series: TaskRow, context: FillContext) {
    const owner = { tenantId: series.tenant_id, userId: series.user_id };
    const future = await futureOpenOccurrences(sql, owner, series.id, context.today.toString(), context.now);
    const next = series.recurrence;
    if (!next) {
      await this.deleteTrees(
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
    await this.deleteTrees(
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
    await this.fill(sql, outbox, series, context.today, context);
  }

  /**
   * After a change to a routine's template steps (the routine holding `taskId`, if any): each future open
   * occurrence drops its step copies and gets fresh copies of the template's steps under the same root.
   */
  private async resyncSteps(sql: Sql, outbox: EventEnvelope[], owner: Owner, taskId: string) {
    const series = await templateRootOf(sql, owner, taskId);
    if (!series?.recurrence) return;
    const context = await this.context(sql, owner);
    const future = await futureOpenOccurrences(sql, owner, series.id, context.today.toString(), context.now);
    if (future.length === 0) return;
    const template = await subtreeRows(sql, owner, series.id);
    const replaced: PlacementBlock[] = [];
    for (const occurrence of future) {
      const steps = (await subtreeRows(sql, owner, occurrence.id)).filter(
        (row) => row.parent_task_id === occurrence.id,
      );
      await this.deleteTrees(
        sql,
        outbox,
        owner,
        steps.map((row) => row.id),
        context.now,
      );
      const copy = occurrenceCopy(template, series.recurrence, occurrence.occurrence_date as string, {
        timezone: context.timezone,
        rootSortOrder: occurrence.sort_order,
        newId: uuidv7,
        rootId: occurrence.id,
      });
      const written = await insertOccurrenceRows(sql, owner, copy.rows.slice(1), context.now);
      await copyDependencies(sql, owner, copy.copies);
      for (const row of written) emitTaskEvent(outbox, 'taskCreated', row, context.now);
      replaced.push({ ids: [occurrence.id, ...written.map((row) => row.id)], deadlineAt: occurrence.deadline_at });
    }
    // The new steps have no slots yet: the occurrence's block is placed again with them.
    this.requestPlacement(outbox, series, replaced, context.now);
  }

  /** The steps of a task made a routine lose their slots as the task did (the template is never scheduled). */
  private async unscheduleSteps(sql: Sql, outbox: EventEnvelope[], owner: Owner, seriesId: string, now: Date) {
    for (const row of await subtreeRows(sql, owner, seriesId)) {
      if (row.id === seriesId || row.chosen_slot_start === null) continue;
      const cleared = applyStatusAndSlot(row, { chosen_slot_start: null, chosen_slot_end: null }, now);
      const saved = await saveTask(sql, { ...cleared, updated_at: now });
      emitTaskEvent(outbox, eventForChange(row, saved), saved, now);
    }
  }

  /**
   * Deletes whole subtrees (roots not nested in each other) with one deleted event per removed task, as a task
   * DELETE does: three statements however many (a series' 60 days of occurrences go at once).
   */
  private async deleteTrees(sql: Sql, outbox: EventEnvelope[], owner: Owner, rootIds: readonly string[], now: Date) {
    const rows = await subtreesRows(sql, owner, rootIds);
    const versions = await bumpVersions(
      sql,
      rows.map((row) => row.id),
    );
    await deleteTasks(sql, owner, rootIds);
    for (const row of rows) {
      emitTaskEvent(outbox, 'taskDeleted', { ...row, version: versions.get(row.id) ?? row.version + 1 }, now);
    }
  }
}
