import { column, row, type Sql } from '@routinely/db';
import type { EventEnvelope } from '@routinely/events';
import type { TaskRow } from '../domain/task-model.js';
import { contentParams } from './task-sql.js';

/** A new root task (everything decided but `sort_order`) with its task.created event, built from that row. */
export interface RootCreate {
  row: TaskRow;
  event: EventEnvelope;
}

/**
 * Root tasks of one owner and their events' outbox rows in one statement: a statement is atomic by
 * itself, so every task and outbox row of it commit together, or none does, without BEGIN and COMMIT of their
 * own. An outbox row is selected from its inserted task, so it exists exactly when the task does.
 *
 * Only `sort_order` is computed here: after the owner's last root, in the statement's snapshot, plus the rank
 * in this statement (its rows do not see each other). The last root is looked up once (`last`, with the owner
 * as plain parameters, so each execution is planned for that owner) as the first row of a backward walk of
 * `tasks_owner_parent_idx` (tenant, user, parent, sort_order): `max(sort_order)` would aggregate every task of
 * the owner, because `parent_task_id is null` is no equality to the planner, while ordering by the parent
 * first (null for every root) matches the index. A lookup correlated with rows of several owners was planned
 * for an owner of about one task and sorted all of a busy owner's tasks instead, hence one owner per
 * statement. Every other column is a value of the input, so the callers' rows and events describe exactly
 * what was written.
 */
const CREATE_ROOTS = `with input as (
       select * from jsonb_to_recordset(?::jsonb) as x(ord int, id uuid, title text, description text, raw_input text,
         priority smallint, duration_min int, deadline_at timestamptz, earliest_start_at timestamptz,
         reminder_channels text[], reminder_offset_min int, tags text[], created_at timestamptz, event_id uuid,
         event_type text, event jsonb)
     ), last as (
       select t.sort_order from tasks t
       where t.tenant_id = ? and t.user_id = ? and t.parent_task_id is null
       order by t.parent_task_id desc, t.sort_order desc limit 1
     ), task as (
       insert into tasks (id, tenant_id, user_id, parent_task_id, depth, sort_order, title, description, raw_input,
         status, priority, duration_min, deadline_at, earliest_start_at, reminder_channels, reminder_offset_min, tags,
         chosen_slot_start, chosen_slot_end, completed_at, created_at, updated_at, version)
       select id, ?::uuid, ?::uuid, null, 1, coalesce((select sort_order from last), -1) + row_number() over (order by ord),
         title, description, raw_input, 'pending', priority, duration_min, deadline_at, earliest_start_at,
         reminder_channels, reminder_offset_min, tags, null, null, null, created_at, created_at, 1
       from input order by ord
       returning id, sort_order
     ), event as (
       insert into outbox (id, subject, payload, created_at)
       select input.event_id, input.event_type, input.event, input.created_at
       from input join task on task.id = input.id order by input.ord
     )
     select id, sort_order from task`;

const createdRootRow = row({ id: column.uuid, sort_order: column.integer });
const createdChildRow = row({ sort_order: column.integer });
const nextSortOrderRow = row({ parent_task_id: column.uuid.nullable(), next: column.integer });

/** Which statement a root create can share: one per owner. */
export const rootCreateOwner = ({ row }: RootCreate) => `${row.tenant_id}/${row.user_id}`;

/**
 * Writes root tasks of one owner and their events in one statement; returns each one's sort order, in input
 * order. Outside a transaction it runs on the read pool of plain `pg` connections (read-pool.ts) and
 * commits on its own.
 */
export async function insertRootTasksWithEvents(sql: Sql, creates: readonly RootCreate[]): Promise<number[]> {
  const owner = creates[0]?.row;
  if (!owner) return [];
  const input = creates.map(({ row, event }, ord) => {
    if (row.parent_task_id !== null) throw new Error('insertRootTasksWithEvents writes root tasks only');
    if (row.tenant_id !== owner.tenant_id || row.user_id !== owner.user_id) {
      throw new Error('insertRootTasksWithEvents writes the tasks of one owner');
    }
    return {
      ord,
      id: row.id,
      title: row.title,
      description: row.description,
      raw_input: row.raw_input,
      priority: row.priority,
      duration_min: row.duration_min,
      deadline_at: row.deadline_at?.toISOString() ?? null,
      earliest_start_at: row.earliest_start_at?.toISOString() ?? null,
      reminder_channels: row.reminder_channels,
      reminder_offset_min: row.reminder_offset_min,
      tags: row.tags,
      // created_at = updated_at = the event's occurred_at: one instant for the whole create.
      created_at: row.created_at.toISOString(),
      event_id: event.id,
      event_type: event.type,
      event,
    };
  });
  const inserted = await sql.rows(
    createdRootRow,
    CREATE_ROOTS,
    [JSON.stringify(input), owner.tenant_id, owner.user_id, owner.tenant_id, owner.user_id],
    'task_create_roots',
  );
  const sortOrders = new Map(inserted.map((r) => [r.id, r.sort_order]));
  return creates.map(({ row }) => {
    const sortOrder = sortOrders.get(row.id);
    if (sortOrder === undefined) throw new Error('task insert returned no row');
    return sortOrder;
  });
}

/**
 * A new child task and its event's outbox row in one statement, inside the transaction that holds the owner's
 * tree lock and checked the parent: the same CTEs as `CREATE_ROOTS` for one row, its last sibling found by the
 * parent (an equality, so the index walk needs no trick).
 */
const CREATE_CHILD = `with task as (
       insert into tasks (id, tenant_id, user_id, parent_task_id, depth, sort_order, title, description, raw_input,
         status, priority, duration_min, deadline_at, earliest_start_at, reminder_channels, reminder_offset_min, tags,
         chosen_slot_start, chosen_slot_end, completed_at, created_at, updated_at, version)
       values (?::uuid, ?, ?, ?::uuid, ?, coalesce((select t.sort_order + 1 from tasks t
                                              where t.tenant_id = ? and t.user_id = ? and t.parent_task_id = ?
                                              order by t.parent_task_id desc, t.sort_order desc limit 1), 0),
         ?, ?, ?, ?, ?, ?, ?::timestamptz, ?::timestamptz, ?::text[], ?, ?::text[],
         null, null, null, ?::timestamptz, ?::timestamptz, ?)
       returning sort_order
     ), event as (
       insert into outbox (id, subject, payload, created_at)
       select ?::uuid, ?::text, ?::jsonb, ?::timestamptz from task
     )
     select sort_order from task`;

/**
 * Writes the child task `row` (everything decided but `sort_order`) and `event` (built from that row) in the
 * caller's transaction; returns the sort order it was given.
 */
export async function insertChildTaskWithEvent(sql: Sql, row: TaskRow, event: EventEnvelope): Promise<number> {
  if (row.parent_task_id === null) throw new Error('insertChildTaskWithEvent writes child tasks only');
  const params = [
    row.id,
    row.tenant_id,
    row.user_id,
    row.parent_task_id,
    row.depth,
    row.tenant_id,
    row.user_id,
    row.parent_task_id,
    ...contentParams(row),
    row.created_at,
    row.updated_at,
    row.version,
    event.id,
    event.type,
    JSON.stringify(event),
    event.occurred_at,
  ];
  const [inserted] = await sql.rows(createdChildRow, CREATE_CHILD, params);
  if (!inserted) throw new Error('task insert returned no row');
  return inserted.sort_order;
}

/** The next free `sort_order` under each of `parentIds` and among the roots (`parent_task_id` null). */
export const nextSortOrders = (sql: Sql, owner: { tenantId: string; userId: string }, parentIds: readonly string[]) =>
  sql.rows(
    nextSortOrderRow,
    `select parent_task_id, (max(sort_order) + 1)::int as next from tasks
     where tenant_id = ? and user_id = ? and (parent_task_id is null or parent_task_id = any(?::uuid[]))
     group by parent_task_id`,
    [owner.tenantId, owner.userId, parentIds],
  );
