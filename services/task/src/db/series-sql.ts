import { column, row, type Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { z } from 'zod';
import { type StoredRecurrence, TASK_STATUSES, type TaskRow } from '../domain/task-model.js';
import { NEXT_ROOT_POSITION, parentOf, TASK_COLUMNS, taskRow } from './task-sql.js';

const countRow = row({ n: column.integer });
const fillPositionRow = row({ dates: column.textArray, next_root_sort_order: column.integer });
const historyRow = row({ series_id: column.uuid, occurrence_date: column.date, status: z.enum(TASK_STATUSES) });
const dueFillRow = row({
  series_id: column.uuid,
  tenant_id: column.uuid,
  user_id: column.uuid,
  filled_through: column.date,
});
const startRow = row({ start: column.uuid });

/** A row of an occurrence to write: a copy of a series task with everything decided. */
export interface OccurrenceInsert {
  id: string;
  parent_task_id: string | null;
  depth: number;
  sort_order: number;
  row: TaskRow;
  series_id: string;
  occurrence_date: string | null;
  earliest_start_at: Date | null;
  deadline_at: Date | null;
}

/**
 * Writes occurrence rows (pending, no slot) in one statement. The unique key (series_id, occurrence_date) makes a
 * second copy of one date a no-op (`on conflict do nothing`): only the rows really written come back, so a
 * caller copies steps only under roots it wrote.
 */
export async function insertOccurrenceRows(
  sql: Sql,
  owner: Owner,
  rows: readonly OccurrenceInsert[],
  now: Date,
): Promise<TaskRow[]> {
  if (rows.length === 0) return [];
  const records = rows.map((r, ord) => ({
    ord,
    id: r.id,
    parent_task_id: r.parent_task_id,
    depth: r.depth,
    sort_order: r.sort_order,
    title: r.row.title,
    description: r.row.description,
    raw_input: r.row.raw_input,
    priority: r.row.priority,
    duration_min: r.row.duration_min,
    deadline_at: r.deadline_at?.toISOString() ?? null,
    earliest_start_at: r.earliest_start_at?.toISOString() ?? null,
    reminder_channels: r.row.reminder_channels,
    reminder_offset_min: r.row.reminder_offset_min,
    tags: r.row.tags,
    series_id: r.series_id,
    occurrence_date: r.occurrence_date,
  }));
  return sql.rows(
    taskRow,
    `with input as (
       select * from jsonb_to_recordset(?::jsonb) as x(ord int, id uuid, parent_task_id uuid, depth smallint,
         sort_order int, title text, description text, raw_input text, priority smallint, duration_min int,
         deadline_at timestamptz, earliest_start_at timestamptz, reminder_channels text[], reminder_offset_min int,
         tags text[], series_id uuid, occurrence_date date)
     )
     insert into tasks (${TASK_COLUMNS})
     select id, ?, ?, parent_task_id, depth, sort_order, title, description, raw_input, 'pending', priority,
       duration_min, deadline_at, earliest_start_at, reminder_channels, reminder_offset_min, tags, null, null, null,
       ?, ?, 1, null, series_id, occurrence_date
     from input order by ord
     on conflict (series_id, occurrence_date) do nothing
     returning ${TASK_COLUMNS}`,
    [JSON.stringify(records), owner.tenantId, owner.userId, now, now],
  );
}

/** Copies the dependency edges among a series' tasks onto their copies (`copies`: series task id -> copy id). */
export async function copyDependencies(sql: Sql, owner: Owner, copies: ReadonlyMap<string, string>): Promise<void> {
  if (copies.size === 0) return;
  await sql.run(
    `with map as (select * from unnest(?::uuid[], ?::uuid[]) as m(original, copy))
     insert into task_dependencies (id, tenant_id, user_id, task_id, depends_on_id, dep_type, lag_min, created_at)
     select gen_random_uuid(), d.tenant_id, d.user_id, a.copy, b.copy, d.dep_type, d.lag_min, now()
     from task_dependencies d
     join map a on a.original = d.task_id
     join map b on b.original = d.depends_on_id
     where d.tenant_id = ? and d.user_id = ?
     on conflict do nothing`,
    [[...copies.keys()], [...copies.values()], owner.tenantId, owner.userId],
  );
}

export async function saveRecurrence(sql: Sql, owner: Owner, id: string, recurrence: StoredRecurrence | null) {
  const saved = await sql.first(
    taskRow,
    `update tasks set recurrence = ?::jsonb, version = version + 1
     where id = ? and tenant_id = ? and user_id = ? returning ${TASK_COLUMNS}`,
    [recurrence === null ? null : JSON.stringify(recurrence), id, owner.tenantId, owner.userId],
  );
  if (!saved) throw new Error(`task ${id} vanished inside its transaction`);
  return saved;
}

/**
 * How many routines (series with a recurrence) the owner has, counted under the owner's routine lock until the
 * transaction ends: two requests making routines at once count one after the other.
 */
export async function countRoutinesLocked(sql: Sql, owner: Owner): Promise<number> {
  await sql.advisoryLock(`task:routines:${owner.tenantId}:${owner.userId}`);
  const [counted] = await sql.rows(
    countRow,
    'select count(*)::int as n from tasks where tenant_id = ? and user_id = ? and recurrence is not null',
    [owner.tenantId, owner.userId],
  );
  return counted?.n ?? 0;
}

/**
 * Where a fill starts from, in one statement: the dates of the series' occurrences that exist (any status), and
 * the sort order after the owner's last root task (where new occurrence roots go).
 */
export async function fillPosition(sql: Sql, owner: Owner, seriesId: string) {
  const [position] = await sql.rows(
    fillPositionRow,
    `select array(select occurrence_date::text from tasks where series_id = ? and occurrence_date is not null) as dates,
       ${NEXT_ROOT_POSITION} as next_root_sort_order`,
    [seriesId, owner.tenantId, owner.userId],
  );
  return { dates: new Set(position?.dates), nextRootSortOrder: position?.next_root_sort_order ?? 0 };
}

/**
 * Occurrence roots a series edit may still change: dated today or later, pending or scheduled, and not started
 * (no slot, or a slot that has not begun).
 */
export async function futureOpenOccurrences(sql: Sql, owner: Owner, seriesId: string, today: string, now: Date) {
  return sql.rows(
    taskRow,
    `select ${TASK_COLUMNS} from tasks
       where series_id = ? and tenant_id = ? and user_id = ? and occurrence_date >= ?::date
         and status in ('pending', 'scheduled') and (chosen_slot_start is null or chosen_slot_start > ?)
       order by occurrence_date
       for update`,
    [seriesId, owner.tenantId, owner.userId, today, now],
  );
}

/**
 * The owner's open occurrence roots of every series dated `today` or later whose slot (if any) has not started,
 * by series and date, locked: what a timezone change moves (ADR 029).
 */
export async function openOccurrencesOfOwner(sql: Sql, owner: Owner, today: string, now: Date) {
  return sql.rows(
    taskRow,
    `select ${TASK_COLUMNS} from tasks
       where tenant_id = ? and user_id = ? and series_id is not null and occurrence_date >= ?::date
         and status in ('pending', 'scheduled') and (chosen_slot_start is null or chosen_slot_start > ?)
       order by series_id, occurrence_date
       for update`,
    [owner.tenantId, owner.userId, today, now],
  );
}

/** Occurrence roots of a series between two local dates (inclusive), by date. */
export async function occurrencesBetween(sql: Sql, owner: Owner, seriesId: string, from: string, to: string) {
  return sql.rows(
    taskRow,
    `select ${TASK_COLUMNS} from tasks
       where series_id = ? and tenant_id = ? and user_id = ? and occurrence_date between ?::date and ?::date
       order by occurrence_date`,
    [seriesId, owner.tenantId, owner.userId, from, to],
  );
}

/** Each occurrence's date and status, per series, oldest first (series_stats). */
export async function occurrenceHistory(sql: Sql, owner: Owner, seriesIds: readonly string[]) {
  if (seriesIds.length === 0) return [];
  return sql.rows(
    historyRow,
    `select series_id, occurrence_date, status from tasks
     where series_id = any(?::uuid[]) and tenant_id = ? and user_id = ? and occurrence_date is not null
     order by series_id, occurrence_date`,
    [seriesIds, owner.tenantId, owner.userId],
  );
}

export interface SeriesFill extends Owner {
  seriesId: string;
  filledThrough: string;
}

/** Records how far a series is filled and when it is due next. */
export async function saveSeriesFill(sql: Sql, fill: SeriesFill, dueAt: Date): Promise<void> {
  await sql.run(
    `insert into task_series_fills (series_id, tenant_id, user_id, due_at, filled_through) values (?, ?, ?, ?, ?::date)
     on conflict (series_id) do update set due_at = excluded.due_at, filled_through = excluded.filled_through`,
    [fill.seriesId, fill.tenantId, fill.userId, dueAt, fill.filledThrough],
  );
}

export async function deleteSeriesFill(sql: Sql, seriesId: string): Promise<void> {
  await sql.run('delete from task_series_fills where series_id = ?', [seriesId]);
}

/**
 * Claims up to `limit` series due for a fill, locked until the caller's transaction ends; rows another worker
 * holds are skipped, so replicas fill different series and never one twice at once. The series' own row is
 * locked with its fill row, as a series PATCH or DELETE locks it (task row, then fill row): a fill and a DELETE
 * of one series never overlap, and a series being edited or deleted is skipped until the next pass.
 */
export async function claimDueSeries(sql: Sql, now: Date, limit: number): Promise<SeriesFill[]> {
  const rows = await sql.rows(
    dueFillRow,
    `select f.series_id, f.tenant_id, f.user_id, f.filled_through
     from task_series_fills f join tasks t on t.id = f.series_id
     where f.due_at <= ? order by f.due_at limit ? for update of f, t skip locked`,
    [now, limit],
  );
  return rows.map((r) => ({
    seriesId: r.series_id,
    tenantId: r.tenant_id,
    userId: r.user_id,
    filledThrough: r.filled_through,
  }));
}

/**
 * Which of `ids` belong to a routine's template: the series task itself or one of its own steps (an ancestor,
 * or the task, carries the recurrence). Walks up at most five levels per task, in one statement.
 */
export async function templateTaskIds(sql: Sql, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await sql.rows(
    startRow,
    `with recursive up as (
       select id as start, parent_task_id, recurrence from tasks where id = any(?::uuid[])
       union all
       select up.start, p.parent_task_id, p.recurrence from ${parentOf('up')}
     )
     select distinct start from up where recurrence is not null`,
    [ids],
  );
  return new Set(rows.map((r) => r.start));
}

/** The routine whose template holds `taskId` (the task or an ancestor carries a recurrence), if any. */
export async function templateRootOf(sql: Sql, owner: Owner, taskId: string): Promise<TaskRow | undefined> {
  return sql.first(
    taskRow,
    `with recursive up as (
       select ${TASK_COLUMNS} from tasks where id = ? and tenant_id = ? and user_id = ?
       union all
       select ${TASK_COLUMNS.replace(/(\w+)/g, 'p.$1')} from ${parentOf('up')}
     )
     select * from up where recurrence is not null limit 1`,
    [taskId, owner.tenantId, owner.userId],
  );
}
