import type { Sql } from '@routinely/db';
import type { EventEnvelope } from '@routinely/events';
import type { TaskRow } from '../domain/task-model.js';

/**
 * The insert of a new task and of its event's outbox row as one statement (two data-modifying CTEs): a
 * statement is atomic by itself, so both rows commit together without BEGIN and COMMIT of their own, and
 * outside a transaction the create is one round trip (issue 15). The outbox row is selected from the
 * inserted task, so it exists exactly when the task does. Only `sort_order` is computed here (after the last
 * sibling, in the statement's snapshot, as `insertTasks` does); every other column is a parameter, so the
 * caller's row and event describe exactly what was written.
 *
 * The last sibling is the first row of a backward walk of `tasks_owner_parent_idx` (tenant, user, parent,
 * sort_order). `max(sort_order)` reads the same index only for children: `parent_task_id is null` is no
 * equality to the planner, so for roots it aggregated every task of the owner (a bitmap scan growing with
 * the owner's tasks); ordering by the parent first (null for every root) lets it walk the index for roots too.
 */
function createStatement(sibling: 'root' | 'child'): string {
  const siblings = sibling === 'root' ? 't.parent_task_id is null' : 't.parent_task_id = ?';
  return `with task as (
       insert into tasks (id, tenant_id, user_id, parent_task_id, depth, sort_order, title, description, raw_input,
         status, priority, duration_min, deadline_at, earliest_start_at, reminder_channels, reminder_offset_min, tags,
         chosen_slot_start, chosen_slot_end, completed_at, created_at, updated_at, version)
       values (?::uuid, ?, ?, ?::uuid, ?, coalesce((select t.sort_order + 1 from tasks t
                                              where t.tenant_id = ? and t.user_id = ? and ${siblings}
                                              order by t.parent_task_id desc, t.sort_order desc limit 1), 0),
         ?, ?, ?, ?, ?, ?, ?::timestamptz, ?::timestamptz, ?::text[], ?, ?::text[],
         null, null, null, ?::timestamptz, ?::timestamptz, ?)
       returning sort_order
     ), event as (
       insert into outbox (id, subject, payload, created_at)
       select ?::uuid, ?::text, ?::jsonb, ?::timestamptz from task
     )
     select sort_order from task`;
}

const CREATE_ROOT = createStatement('root');
const CREATE_CHILD = createStatement('child');

/**
 * Writes `row` (everything decided but `sort_order`) and `event` (built from that row) in one statement and
 * returns the sort order it was given. Outside a transaction it runs as a named prepared statement on the
 * pool of plain `pg` connections (no knex, parsed once per connection) and commits on its own; inside one
 * (a child create, under the owner's tree lock) it commits with that transaction.
 */
export async function insertTaskWithEvent(sql: Sql, row: TaskRow, event: EventEnvelope): Promise<number> {
  const root = row.parent_task_id === null;
  const params = [
    row.id,
    row.tenant_id,
    row.user_id,
    row.parent_task_id,
    row.depth,
    row.tenant_id,
    row.user_id,
    ...(root ? [] : [row.parent_task_id]),
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
    row.created_at,
    row.updated_at,
    row.version,
    event.id,
    event.type,
    JSON.stringify(event),
    event.occurred_at,
  ];
  const [inserted] = await sql.rows<{ sort_order: number }>(
    root ? CREATE_ROOT : CREATE_CHILD,
    params,
    root ? 'task_create_root' : 'task_create_child',
  );
  if (!inserted) throw new Error('task insert returned no row');
  return inserted.sort_order;
}
