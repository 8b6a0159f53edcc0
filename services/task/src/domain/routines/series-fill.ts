import type { Sql } from '@routinely/db';
import { type EventEnvelope, makeEvent, type OutboxRelay, seriesEvents } from '@routinely/events';
import type { Clock, Owner } from '@routinely/platform';
import { localDateOf, Temporal } from '@routinely/time';
import { v7 as uuidv7 } from 'uuid';
import { findTimezone } from '../../db/calendar-sql.js';
import {
  claimDueSeries,
  copyDependencies,
  deleteSeriesFill,
  fillPosition,
  insertOccurrenceRows,
  type OccurrenceInsert,
  type SeriesFill,
  saveSeriesFill,
} from '../../db/series-sql.js';
import { findTask, subtreeRows } from '../../db/task-sql.js';
import { emitTaskEvent } from '../events.js';
import type { StoredRecurrence, TaskRow } from '../task-model.js';
import { writeWithOutbox } from '../tasks.js';
import { horizonEnd, occurrenceCopy, ruleDates } from './series-plan.js';

/**
 * The fill of routines: writing a series' occurrences through its horizon (on creation, on a recurrence change,
 * and hourly from the fill worker) and asking the scheduler to place them.
 */

/** A series is filled again at least this often (the contract: at least hourly). */
const SERIES_FILL_INTERVAL_MS = 60 * 60 * 1000;
/** The most task ids one placement request (one scheduler run) carries. */
const MAX_IDS_PER_RUN = 1_000;
/** Series one worker fills concurrently, each in its own transaction. */
const FILLS_AT_ONCE = 4;

/** One occurrence to place: its root's and steps' ids, and the end of its window. */
export interface PlacementBlock {
  ids: string[];
  deadlineAt: Date | null;
}

/** The owner's zone and today in it, read once per write. */
export interface FillContext {
  timezone: string;
  today: Temporal.PlainDate;
  now: Date;
}

export async function fillContext(sql: Sql, owner: Owner, clock: Clock): Promise<FillContext> {
  const now = clock.now();
  const timezone = (await findTimezone(sql, owner)) ?? 'UTC';
  return { timezone, today: localDateOf(now, timezone), now };
}

/**
 * One pass of the fill worker: fills series that are due, one transaction each, holding the series' fill row
 * (skipped by other replicas) until it commits. Returns how many series it filled.
 */
export async function fillDueSeries(
  db: Sql,
  clock: Clock,
  relay: Pick<OutboxRelay, 'kick'>,
  maxSeries: number,
): Promise<number> {
  const fillOne = () =>
    writeWithOutbox(db, relay, async (sql, outbox) => {
      const [due] = await claimDueSeries(sql, clock.now(), 1);
      if (!due) return false;
      await refill(sql, outbox, due, clock);
      return true;
    });
  // Most passes find nothing due: one claim says so, not one per lane.
  if (!(await fillOne())) return 0;
  let filled = 1;
  let drained = false;
  // A few fills at once: each waits on PostgreSQL round trips most of its time (SKIP LOCKED keeps them apart).
  const fillOneAfterAnother = async () => {
    while (!drained && filled < maxSeries) {
      if (await fillOne()) filled += 1;
      else drained = true;
    }
  };
  await Promise.all(Array.from({ length: FILLS_AT_ONCE }, fillOneAfterAnother));
  return filled;
}

async function refill(sql: Sql, outbox: EventEnvelope[], due: SeriesFill, clock: Clock) {
  // Read under the series' row lock (claimDueSeries): a series deleted or changed before the claim is seen so.
  const series = await findTask(sql, due, due.seriesId);
  if (!series?.recurrence) return deleteSeriesFill(sql, due.seriesId);
  const context = await fillContext(sql, due, clock);
  const next = Temporal.PlainDate.from(due.filledThrough).add({ days: 1 });
  await fill(sql, outbox, series, Temporal.PlainDate.compare(next, context.today) > 0 ? next : context.today, context);
}

/**
 * Writes the occurrences of every rule date in `[from, today + horizon]` that has none yet, records how far the
 * series is filled and, for `auto_schedule`, asks the scheduler to place those dated today or later. Callers
 * hold the series' row lock and pass the row read under it (creation, a PATCH, the worker's claim), so a
 * DELETE of the series waits for the fill and then takes what it wrote. `template` is the series' subtree when
 * the caller has just read it (else it is read here, when there is something to copy).
 */
export async function fill(
  sql: Sql,
  outbox: EventEnvelope[],
  series: TaskRow,
  from: Temporal.PlainDate,
  context: FillContext,
  template?: readonly TaskRow[],
) {
  const recurrence = series.recurrence as StoredRecurrence;
  const owner = { tenantId: series.tenant_id, userId: series.user_id };
  const to = horizonEnd(recurrence, context.today);
  const position = await fillPosition(sql, owner, series.id);
  const missing = ruleDates(recurrence, from, to).filter((date) => !position.dates.has(date));
  if (missing.length > 0) {
    const subtree = template ?? (await subtreeRows(sql, owner, series.id));
    let sortOrder = position.nextRootSortOrder;
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
    requestPlacement(
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
 * Asks the scheduler to place occurrences (each given as its root's and steps' ids: the run places the root's
 * block with its steps) when the series has `auto_schedule`: one run per at most 1,000 ids, an occurrence never
 * split between runs. Each request carries the latest deadline of its occurrences, the end of the window its
 * run needs (the scheduler caps it). The request is an outbox row of the fill's transaction: it exists exactly
 * when the occurrences do, whatever crashes.
 */
export function requestPlacement(outbox: EventEnvelope[], series: TaskRow, occurrences: PlacementBlock[], at: Date) {
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
