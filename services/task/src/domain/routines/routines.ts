import type { Sql } from '@routinely/db';
import { type EventEnvelope, enqueue, type OutboxRelay } from '@routinely/events';
import { type Clock, fieldError, notFound, type Owner } from '@routinely/platform';
import { LATEST_DATE, Temporal } from '@routinely/time';
import { occurrenceHistory, occurrencesBetween } from '../../db/series-sql.js';
import { findTask } from '../../db/task-sql.js';
import type { RecurrenceInput } from '../task-input.js';
import type { NewTask, TaskRow } from '../task-model.js';
import { type TaskPatch, type TaskService, writeWithOutbox } from '../tasks.js';
import { createSeries, editSeries, followTimezone, plannedRecurrence, removeTask } from './series-edits.js';
import { type FillContext, fillContext, fillDueSeries } from './series-fill.js';
import { type SeriesStats, seriesStats } from './series-plan.js';
import { resyncSteps } from './step-resync.js';

export { MAX_ROUTINES_PER_USER } from './series-edits.js';

/** The longest span `GET /tasks/{id}/occurrences` reads (contract: at most 366 days). */
export const MAX_OCCURRENCE_RANGE_DAYS = 366;

/**
 * Routines (contract "routines"): a root task with a recurrence is a series; its occurrences are copies of its
 * subtree, one per rule date from `starts_on` through today + `horizon_days`. Every write runs in one
 * transaction with its events; the unique key (series_id, occurrence_date) keeps one occurrence per date whatever
 * runs twice. The work itself is in series-fill.ts (writing occurrences), series-edits.ts (edits of a series
 * reaching its occurrences) and step-resync.ts (a template's steps reaching its occurrences).
 */
export class Routines {
  constructor(
    private readonly db: Sql,
    private readonly clock: Clock,
    private readonly relay: Pick<OutboxRelay, 'kick'>,
    private readonly tasks: TaskService,
  ) {}

  /** Creates the series root and its occurrences through the horizon. */
  create(owner: Owner, input: NewTask, recurrence: RecurrenceInput): Promise<TaskRow> {
    return writeWithOutbox(this.db, this.relay, (sql, outbox) =>
      createSeries(sql, outbox, owner, input, recurrence, this.clock),
    );
  }

  /** A plain create; a step added to a routine's template reaches its future open occurrences in the same transaction. */
  createTask(owner: Owner, input: NewTask): Promise<TaskRow> {
    return this.tasks.create(owner, input, async (sql, child) => {
      const outbox: EventEnvelope[] = [];
      await resyncSteps(sql, outbox, owner, child.id, this.clock);
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
    let context: FillContext | undefined;
    return this.tasks.update(owner, id, unscheduled, {
      recurrence:
        recurrence === undefined
          ? undefined
          : async (sql, before) => {
              const planned = await plannedRecurrence(sql, owner, before, recurrence, this.clock);
              context = planned.context;
              return planned.recurrence;
            },
      afterSave: async (sql, outbox, before, saved) => {
        if (recurrence === undefined && before.recurrence === null) {
          // A step of a routine's template: its copies in future open occurrences follow.
          if (before.parent_task_id !== null && before.series_id === null) {
            await resyncSteps(sql, outbox, owner, id, this.clock);
          }
          return saved;
        }
        return editSeries(sql, outbox, owner, { before, saved, context }, this.clock);
      },
    });
  }

  /** Re-parents a task; a step moved out of or into a routine's template reaches its future open occurrences. */
  move(owner: Owner, id: string, parentId: string | null): Promise<TaskRow> {
    return this.tasks.move(owner, id, parentId, async (sql, outbox, before, saved) => {
      if (before.parent_task_id !== null) await resyncSteps(sql, outbox, owner, before.parent_task_id, this.clock);
      if (saved.parent_task_id !== null) await resyncSteps(sql, outbox, owner, saved.id, this.clock);
    });
  }

  /** Re-orders a task among its siblings; the template's step order reaches its future open occurrences. */
  reorder(owner: Owner, id: string, sortOrder: number): Promise<TaskRow> {
    return this.tasks.reorder(owner, id, sortOrder, async (sql, outbox, _before, saved) => {
      if (saved.parent_task_id !== null) await resyncSteps(sql, outbox, owner, saved.id, this.clock);
    });
  }

  /** Deletes a task; a series takes its future open occurrences with it and leaves its history (series-edits.ts). */
  async remove(owner: Owner, id: string): Promise<void> {
    await writeWithOutbox(this.db, this.relay, (sql, outbox) => removeTask(sql, outbox, owner, id, this.clock));
  }

  /**
   * The series' occurrences dated `from`..`to` (defaults: 30 days before the user's today, and 90 days after
   * `from`). 404 unless `id` is the owner's series (one that stopped recurring still has its history).
   */
  async occurrences(owner: Owner, id: string, range: { from?: string | undefined; to?: string | undefined }) {
    const sql = this.db;
    const series = await findTask(sql, owner, id);
    if (!series || series.series_id !== null || series.parent_task_id !== null) throw notFound('Routine');
    const from = range.from ?? (await fillContext(sql, owner, this.clock)).today.subtract({ days: 30 }).toString();
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
    const sql = this.db;
    const today = (await fillContext(sql, owner, this.clock)).today.toString();
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

  /** One pass of the fill worker (series-fill.ts); returns how many series it filled. */
  fillDue(maxSeries: number): Promise<number> {
    return fillDueSeries(this.db, this.clock, this.relay, maxSeries);
  }

  /** The owner's timezone changed: their open occurrences follow it (series-edits.ts), in the caller's transaction. */
  followTimezone(sql: Sql, outbox: EventEnvelope[], owner: Owner): Promise<void> {
    return followTimezone(sql, outbox, owner, this.clock);
  }
}
