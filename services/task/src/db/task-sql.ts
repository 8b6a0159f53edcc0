import { column, type Row, row, type Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { z } from 'zod';
import {
  type NewTask,
  REMINDER_CHANNELS,
  type StoredRecurrence,
  TASK_STATUSES,
  type TaskStatus,
} from '../domain/task-values.js';

const COLUMNS = `id, tenant_id, user_id, parent_task_id, depth, sort_order, title, description, raw_input, status,
  priority, duration_min, deadline_at, earliest_start_at, reminder_channels, reminder_offset_min, tags,
  chosen_slot_start, chosen_slot_end, completed_at, created_at, updated_at, version, recurrence, series_id,
  occurrence_date`;

/** A routine's rule as its series root stores it (jsonb, written whole by `saveRecurrence`). */
const recurrenceColumn: z.ZodType<StoredRecurrence> = z.object({
  rule: z.string(),
  starts_on: z.string(),
  until: z.string().nullable(),
  window: z.object({ start: z.string(), end: z.string() }).nullable(),
  horizon_days: z.number(),
  auto_schedule: z.boolean(),
});

/**
 * A tasks row (`COLUMNS`). Kept flat, one codec per column: the hot reads (a task, a subtree, the calendar's
 * and the list's pages) parse every row they answer through it.
 */
const taskColumns = {
  id: column.uuid,
  tenant_id: column.uuid,
  user_id: column.uuid,
  parent_task_id: column.uuid.nullable(),
  depth: column.integer,
  sort_order: column.integer,
  title: column.text,
  description: column.text.nullable(),
  raw_input: column.text.nullable(),
  status: z.enum(TASK_STATUSES),
  priority: column.integer,
  duration_min: column.integer,
  deadline_at: column.timestamp.nullable(),
  earliest_start_at: column.timestamp.nullable(),
  reminder_channels: z.array(z.enum(REMINDER_CHANNELS)),
  reminder_offset_min: column.integer,
  tags: column.textArray,
  chosen_slot_start: column.timestamp.nullable(),
  chosen_slot_end: column.timestamp.nullable(),
  completed_at: column.timestamp.nullable(),
  created_at: column.timestamp,
  updated_at: column.timestamp,
  /** Change counter of the row (see the entity); events carry it as `version`. */
  version: column.integer,
  /** A routine's rule on its series root (contract "routines"); null elsewhere. */
  recurrence: column.json(recurrenceColumn).nullable(),
  /** The series an occurrence, or a step copied into one, came from. */
  series_id: column.uuid.nullable(),
  /** The local date of an occurrence (`YYYY-MM-DD`, on its root). */
  occurrence_date: column.date.nullable(),
};
export const taskRow = row(taskColumns);
export type TaskRow = Row<typeof taskRow>;

/**
 * A tasks row with its timestamps left as PostgreSQL's text (both pools return them so, read-pool.ts): the tree
 * answers format them without making Dates (`isoFromPgText`).
 */
export const taskTextRow = row({
  ...taskColumns,
  deadline_at: column.text.nullable(),
  earliest_start_at: column.text.nullable(),
  chosen_slot_start: column.text.nullable(),
  chosen_slot_end: column.text.nullable(),
  completed_at: column.text.nullable(),
  created_at: column.text,
  updated_at: column.text,
});
export type TaskTextRow = Row<typeof taskTextRow>;

const nextRow = row({ next: column.integer });
const countRow = row({ n: column.integer });
const idRow = row({ id: column.uuid });
const shapeRow = row({ id: column.uuid, depth: column.integer });
const versionRow = row({ id: column.uuid, version: column.integer });

/** A new row with everything decided (id, depth, position). */
export interface TaskInsert extends NewTask {
  id: string;
  depth: number;
  /**
   * null: after the last sibling, computed by the insert itself (one round trip less than `nextSortOrder`
   * first, same snapshot). Only for one new row per parent in a call: rows of one statement do not see
   * each other.
   */
  sort_order: number | null;
}

/**
 * The position after the owner's last task whose `t.parent_task_id` meets `parent` (e.g. `is null`: among the
 * roots), as a subquery; its parameters are the tenant and the user, then any of `parent`'s.
 */
const nextPosition = (parent: string) => `(select coalesce(max(t.sort_order) + 1, 0) from tasks t
  where t.tenant_id = ? and t.user_id = ? and t.parent_task_id ${parent})`;

/** The position after the owner's last root task, as a subquery (parameters: tenant, user). */
export const NEXT_ROOT_POSITION = nextPosition('is null');

/** Position after the last sibling under `parentId` (null: among the roots). */
export async function nextSortOrder(sql: Sql, owner: Owner, parentId: string | null): Promise<number> {
  const params = parentId === null ? [owner.tenantId, owner.userId] : [owner.tenantId, owner.userId, parentId];
  const position = await sql.first(
    nextRow,
    `select ${parentId === null ? NEXT_ROOT_POSITION : nextPosition('= ?')} as next`,
    params,
  );
  return position?.next ?? 0;
}

/** Inserts many rows in one statement (a JSON recordset), returning them in the given order. */
export async function insertTasks(sql: Sql, owner: Owner, rows: TaskInsert[], now: Date): Promise<TaskRow[]> {
  if (rows.length === 0) return [];
  const records = rows.map((r, i) => ({
    ...r,
    ord: i,
    deadline_at: r.deadline_at?.toISOString() ?? null,
    earliest_start_at: r.earliest_start_at?.toISOString() ?? null,
  }));
  // The statement also answers each row's `ord`; the row schema leaves it out.
  return sql.rows(
    taskRow,
    `with input as (
       select * from jsonb_to_recordset(?::jsonb) as x(ord int, id uuid, parent_task_id uuid, depth smallint,
         sort_order int, title text, description text, raw_input text, priority smallint, duration_min int,
         deadline_at timestamptz, earliest_start_at timestamptz, reminder_channels text[],
         reminder_offset_min int, tags text[])
     ), ins as (
       insert into tasks (${COLUMNS})
       select id, ?, ?, parent_task_id, depth, coalesce(sort_order, case when parent_task_id is null
           then ${NEXT_ROOT_POSITION}
           else ${nextPosition('= input.parent_task_id')} end),
         title, description, raw_input, 'pending', priority,
         duration_min, deadline_at, earliest_start_at, reminder_channels, reminder_offset_min, tags,
         null, null, null, ?, ?, 1, null, null, null
       from input order by ord
       returning ${COLUMNS}
     )
     select ins.*, input.ord from ins join input on input.id = ins.id order by input.ord`,
    [
      JSON.stringify(records),
      owner.tenantId,
      owner.userId,
      owner.tenantId,
      owner.userId,
      owner.tenantId,
      owner.userId,
      now,
      now,
    ],
  );
}

const TASK_BY_ID = `select ${COLUMNS} from tasks where id = ? and tenant_id = ? and user_id = ?`;

export async function findTask(sql: Sql, owner: Owner, id: string, lock = false): Promise<TaskRow | undefined> {
  const params = [id, owner.tenantId, owner.userId];
  // The plain read is the hottest statement of the service: a hot read on the read pool outside transactions.
  return lock
    ? sql.first(taskRow, `${TASK_BY_ID} for update`, params)
    : sql.first(taskRow, TASK_BY_ID, params, 'task_by_id');
}

/** One task lookup of a batch: the owner's task `id`. */
export interface TaskKey extends Owner {
  id: string;
}

/**
 * The tasks of several lookups (each its own owner) in one statement, in the lookups' order (undefined: not
 * that owner's task). Concurrent reads of single tasks share it (TaskService.find): one round trip and
 * one PostgreSQL wake-up for many requests. Each lookup walks the primary key, as `TASK_BY_ID` does: the
 * owner is checked outside the lateral lookup (`offset 0` keeps it there), because a join on all three
 * columns was planned as a walk of an owner index, which reads every task of a busy owner.
 */
const TASKS_BY_KEYS = `select k.ord, ${COLUMNS.replace(/(\w+)/g, 't.$1')}
     from unnest(?::uuid[], ?::uuid[], ?::uuid[]) with ordinality as k(id, tenant_id, user_id, ord)
     cross join lateral (select * from tasks where tasks.id = k.id offset 0) t
     where t.tenant_id = k.tenant_id and t.user_id = k.user_id`;

const taskByKeyRow = row({ ...taskColumns, ord: column.bigint });

export async function findTasksByKeys(sql: Sql, keys: readonly TaskKey[]): Promise<(TaskRow | undefined)[]> {
  const rows = await sql.rows(
    taskByKeyRow,
    TASKS_BY_KEYS,
    [keys.map((k) => k.id), keys.map((k) => k.tenantId), keys.map((k) => k.userId)],
    'tasks_by_keys',
  );
  const found: (TaskRow | undefined)[] = keys.map(() => undefined);
  for (const { ord, ...task } of rows) found[ord - 1] = task;
  return found;
}

export async function findTasks(sql: Sql, owner: Owner, ids: readonly string[]): Promise<TaskRow[]> {
  if (ids.length === 0) return [];
  return sql.rows(
    taskRow,
    `select ${COLUMNS} from tasks where id = any(?::uuid[]) and tenant_id = ? and user_id = ? order by id`,
    [ids, owner.tenantId, owner.userId],
  );
}

export interface TaskFilters {
  status?: TaskStatus | undefined;
  parentTaskId?: string | undefined;
  tag?: string | undefined;
  seriesId?: string | undefined;
  limit: number;
  offset: number;
}

export async function listTasks(sql: Sql, owner: Owner, filters: TaskFilters): Promise<TaskRow[]> {
  const where = ['tenant_id = ?', 'user_id = ?'];
  const params: unknown[] = [owner.tenantId, owner.userId];
  if (filters.status) {
    where.push('status = ?');
    params.push(filters.status);
  }
  if (filters.parentTaskId) {
    where.push('parent_task_id = ?');
    params.push(filters.parentTaskId);
  }
  if (filters.tag) {
    where.push('tags @> array[?]::text[]');
    params.push(filters.tag);
  }
  if (filters.seriesId) {
    where.push('series_id = ?');
    params.push(filters.seriesId);
  }
  params.push(filters.limit, filters.offset);
  return sql.rows(
    taskRow,
    `select ${COLUMNS} from tasks where ${where.join(' and ')} order by id limit ? offset ?`,
    params,
  );
}

/**
 * The step of a walk down the tree (the recursive CTE named `walk`): each row's children as `c`, one probe of
 * tasks_parent_idx per parent (children always share their parent's owner). The OFFSET 0 fence keeps the planner
 * from flattening the lateral subquery into a join: as a join it chose a sequential scan and a hash join per level
 * whenever the table had grown faster than its statistics (a first routine fill: 430 ms for a 4-task subtree of
 * 185,000 tasks, 1 ms with the fence).
 */
export const childrenOf = (walk: string) =>
  `${walk} cross join lateral (select * from tasks where parent_task_id = ${walk}.id offset 0) c`;

/**
 * The step of a walk up the tree (the recursive CTE named `walk`): each row's parent as `p`, one primary-key probe
 * per row, fenced as `childrenOf` is. As a join, a routine fill's placement runs asked which of their 60 tasks
 * belong to a template with a sequential scan per level: 23 ms a call at 13,500 tasks, the most of a run's time.
 */
export const parentOf = (walk: string) =>
  `${walk} cross join lateral (select * from tasks where id = ${walk}.parent_task_id offset 0) p`;

/**
 * The task and all its descendants in one recursive query, parents before children and siblings in
 * order. Empty when the root is not the owner's. The walk is keyed by id and parent only (children always
 * share their parent's owner) so it takes the primary key and tasks_parent_idx; the owner filter applies to the
 * result.
 */
const subtreesWhere = (roots: string) => `with recursive sub as (
       select ${COLUMNS} from tasks where ${roots}
       union all
       select ${COLUMNS.replace(/(\w+)/g, 'c.$1')} from ${childrenOf('sub')}
     )
     select * from sub where tenant_id = ? and user_id = ? order by depth, sort_order, id`;
const SUBTREE = subtreesWhere('id = ?');
const SUBTREES = subtreesWhere('id = any(?::uuid[])');

export async function subtreeRows(sql: Sql, owner: Owner, rootId: string): Promise<TaskRow[]> {
  return sql.rows(taskRow, SUBTREE, [rootId, owner.tenantId, owner.userId], 'task_subtree');
}

/** The subtrees of several roots in one statement (roots that are not nested in each other). */
export async function subtreesRows(sql: Sql, owner: Owner, rootIds: readonly string[]): Promise<TaskRow[]> {
  if (rootIds.length === 0) return [];
  return sql.rows(taskRow, SUBTREES, [rootIds, owner.tenantId, owner.userId]);
}

/** Ids and depths of a subtree only (move needs them for the cycle and depth checks). */
export async function subtreeShape(sql: Sql, owner: Owner, rootId: string): Promise<{ id: string; depth: number }[]> {
  return sql.rows(
    shapeRow,
    `with recursive sub as (
       select id, depth, tenant_id, user_id from tasks where id = ?
       union all
       select c.id, c.depth, c.tenant_id, c.user_id from ${childrenOf('sub')}
     )
     select id, depth from sub where tenant_id = ? and user_id = ?`,
    [rootId, owner.tenantId, owner.userId],
  );
}

/** The owner's tasks, depth-first with siblings by sort_order, one page of that order (one query). */
export async function ownerTreeRows(
  sql: Sql,
  owner: Owner,
  page: { limit: number; offset: number },
): Promise<TaskRow[]> {
  return sql.rows(
    taskRow,
    `with recursive walk as (
       select t.*, array[lpad(t.sort_order::text, 10, '0') || t.id::text] as path
       from tasks t where t.tenant_id = ? and t.user_id = ? and t.parent_task_id is null
       union all
       select c.*, walk.path || (lpad(c.sort_order::text, 10, '0') || c.id::text)
       from ${childrenOf('walk')}
     )
     select ${COLUMNS} from walk order by path limit ? offset ?`,
    [owner.tenantId, owner.userId, page.limit, page.offset],
  );
}

/** How many tasks the owner has (the tree's length). */
export async function countOwnerTasks(sql: Sql, owner: Owner): Promise<number> {
  const counted = await sql.first(
    countRow,
    'select count(*)::int as n from tasks where tenant_id = ? and user_id = ?',
    [owner.tenantId, owner.userId],
  );
  return counted?.n ?? 0;
}

/**
 * Writes every mutable column of a row (the domain merged the patch). The recurrence only with `recurrence`: a
 * routine's PATCH read the row under its lock, while other writers (a move under the tree lock) must not write
 * back a recurrence they read before a PATCH changed it.
 */
export async function saveTask(sql: Sql, row: TaskRow, options: { recurrence?: boolean } = {}): Promise<TaskRow> {
  const saved = await sql.first(
    taskRow,
    `update tasks set parent_task_id = ?, depth = ?, sort_order = ?, title = ?, description = ?, raw_input = ?,
       status = ?, priority = ?, duration_min = ?, deadline_at = ?, earliest_start_at = ?, reminder_channels = ?,
       reminder_offset_min = ?, tags = ?, chosen_slot_start = ?, chosen_slot_end = ?, completed_at = ?, updated_at = ?,
       ${options.recurrence ? 'recurrence = ?::jsonb,' : ''} version = version + 1
     where id = ? and tenant_id = ? and user_id = ?
     returning ${COLUMNS}`,
    [
      row.parent_task_id,
      row.depth,
      row.sort_order,
      ...contentParams(row),
      row.chosen_slot_start,
      row.chosen_slot_end,
      row.completed_at,
      row.updated_at,
      ...(options.recurrence ? [row.recurrence === null ? null : JSON.stringify(row.recurrence)] : []),
      row.id,
      row.tenant_id,
      row.user_id,
    ],
  );
  if (!saved) throw new Error(`task ${row.id} vanished inside its transaction`);
  return saved;
}

/**
 * Writes the status, slot and completion of many tasks of one owner in one statement (a run applies up to 1,000
 * slots at once), each row's version bumped as `saveTask` does; answers the saved rows in the order given.
 */
export async function saveSlots(sql: Sql, owner: Owner, rows: readonly TaskRow[]): Promise<TaskRow[]> {
  if (rows.length === 0) return [];
  const values = rows.map((row) => ({
    id: row.id,
    status: row.status,
    chosen_slot_start: row.chosen_slot_start?.toISOString() ?? null,
    chosen_slot_end: row.chosen_slot_end?.toISOString() ?? null,
    completed_at: row.completed_at?.toISOString() ?? null,
    updated_at: row.updated_at.toISOString(),
  }));
  const saved = await sql.rows(
    taskRow,
    `update tasks set status = v.status, chosen_slot_start = v.chosen_slot_start,
         chosen_slot_end = v.chosen_slot_end, completed_at = v.completed_at, updated_at = v.updated_at,
         version = tasks.version + 1
       from jsonb_to_recordset(?::jsonb) as v(id uuid, status text, chosen_slot_start timestamptz,
         chosen_slot_end timestamptz, completed_at timestamptz, updated_at timestamptz)
       where tasks.id = v.id and tasks.tenant_id = ? and tasks.user_id = ?
       returning ${COLUMNS.split(',')
         .map((column) => `tasks.${column.trim()}`)
         .join(', ')}`,
    [JSON.stringify(values), owner.tenantId, owner.userId],
  );
  const byId = new Map(saved.map((row) => [row.id, row]));
  return rows.map((row) => {
    const found = byId.get(row.id);
    if (!found) throw new Error(`task ${row.id} vanished inside its transaction`);
    return found;
  });
}

export async function shiftDepths(sql: Sql, ids: readonly string[], delta: number): Promise<void> {
  if (delta === 0 || ids.length === 0) return;
  await sql.run('update tasks set depth = depth + ?, version = version + 1 where id = any(?::uuid[])', [delta, ids]);
}

/** Sets sort_order 0..n-1 in the given order. */
export async function renumberSiblings(sql: Sql, orderedIds: readonly string[], now: Date): Promise<void> {
  await sql.run(
    `update tasks set sort_order = v.ord - 1, updated_at = ?, version = version + 1
     from unnest(?::uuid[]) with ordinality as v(id, ord)
     where tasks.id = v.id and tasks.sort_order <> v.ord - 1`,
    [now, orderedIds],
  );
}

export async function siblingIds(sql: Sql, owner: Owner, parentId: string | null): Promise<string[]> {
  const parentClause = parentId === null ? 'parent_task_id is null' : 'parent_task_id = ?';
  const params = parentId === null ? [owner.tenantId, owner.userId] : [owner.tenantId, owner.userId, parentId];
  const rows = await sql.rows(
    idRow,
    `select id from tasks where tenant_id = ? and user_id = ? and ${parentClause} order by sort_order, id`,
    params,
  );
  return rows.map((r) => r.id);
}

/**
 * Counts a deletion as a change of every row it removes and returns the new versions: waiting on the row locks
 * of writes still in flight, so a deleted event always carries a newer version than any event before it.
 */
export async function bumpVersions(sql: Sql, ids: readonly string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await sql.rows(
    versionRow,
    'update tasks set version = version + 1 where id = any(?::uuid[]) returning id, version',
    [ids],
  );
  return new Map(rows.map((bumped) => [bumped.id, bumped.version]));
}

/** Deletes the owner's tasks `ids` (their descendants go with them). */
export async function deleteTasks(sql: Sql, owner: Owner, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql.run('delete from tasks where id = any(?::uuid[]) and tenant_id = ? and user_id = ?', [
    ids,
    owner.tenantId,
    owner.userId,
  ]);
}

/** A row's own content, in column order from `title` to `tags` (the statements that write it all use it). */
export function contentParams(row: TaskRow): unknown[] {
  return [
    row.title,
    row.description,
    row.raw_input,
    row.status,
    row.priority,
    row.duration_min,
    row.deadline_at,
    row.earliest_start_at,
    row.reminder_channels,
    row.reminder_offset_min,
    row.tags,
  ];
}

/** The other tables' modules that read task rows (series, calendar, feed, tree) select them the same way. */
export { COLUMNS as TASK_COLUMNS };

/**
 * Serialises tree-shaping writes of one user (create under a parent, move, reorder, dependency edges,
 * imports) until the transaction ends, so racing requests cannot together build a cycle or depth 6.
 */
export function lockOwnerTree(sql: Sql, owner: Owner): Promise<void> {
  return sql.advisoryLock(`task:${owner.tenantId}:${owner.userId}`);
}
