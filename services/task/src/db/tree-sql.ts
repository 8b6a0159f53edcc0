import type { Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import type { TaskRow } from '../domain/task-model.js';
import { parseTaskRow, TASK_COLUMNS } from './task-sql.js';

/**
 * The fingerprint of a subtree: md5 of its rows' `id:xmin` pairs in id order. `xmin` is the id of the
 * transaction that wrote the row version a snapshot sees, so any committed insert, update, move or delete of a
 * row of the subtree, whoever wrote it (the task service, the scheduler's slots over gRPC, the calendar's
 * commands, imports, cascades, a hand-written statement), changes the set of pairs and the fingerprint. Row
 * locks (FOR UPDATE, the foreign key's KEY SHARE) do not touch `xmin`, and a committed row version never gets
 * another one, so two snapshots with one fingerprint see the same rows: the same answer.
 */
const FINGERPRINT = `md5(string_agg(id::text || ':' || xmin::text, ',' order by id))`;

/**
 * One statement (one snapshot) that walks the subtree by id and parent only (primary key and tasks_parent_idx,
 * as the plain subtree read), keeps the owner's rows, and computes the fingerprint; only when it differs from
 * the caller's does it fetch the full rows (by primary key), parents before children and siblings in order.
 * Unchanged: one row with the fingerprint and null columns. Not the owner's task: one row, null fingerprint.
 * `offset 0` keeps the lateral subquery from being flattened into a join, so the fingerprint comparison is a
 * one-time filter that skips the row fetch altogether (query-plans.test.ts checks the plan).
 */
const SUBTREE_IF_CHANGED = `with recursive sub as (
       select id, xmin, tenant_id, user_id from tasks where id = ?
       union all
       select c.id, c.xmin, c.tenant_id, c.user_id from tasks c join sub on c.parent_task_id = sub.id
     ), owned as (
       select id, xmin from sub where tenant_id = ? and user_id = ?
     ), stamp as (
       select ${FINGERPRINT} as fingerprint from owned
     )
     select stamp.fingerprint, t.*
     from stamp left join lateral (
       select ${TASK_COLUMNS.replace(/(\w+)/g, 't.$1')} from owned join tasks t on t.id = owned.id
       where stamp.fingerprint is distinct from ?::text
       offset 0
     ) t on true
     order by t.depth, t.sort_order, t.id`;

export type SubtreeSince =
  | { kind: 'missing' }
  | { kind: 'unchanged'; fingerprint: string }
  | { kind: 'changed'; fingerprint: string; rows: TaskRow[] };

/**
 * The subtree of `rootId` unless its fingerprint is still `known` (null: nothing known, always the rows).
 * A named prepared statement on the read pool, like the other hot reads, with a generic plan.
 */
export async function subtreeSince(
  sql: Sql,
  owner: Owner,
  rootId: string,
  known: string | null,
): Promise<SubtreeSince> {
  const rows = await sql.rows<TaskRow & { fingerprint: string | null }>(
    SUBTREE_IF_CHANGED,
    [rootId, owner.tenantId, owner.userId, known],
    // Its plan cannot depend on the parameters (the root by primary key, the walk by parent), and planning it
    // cost more than running it for a tree of 100: planned once per connection.
    { name: 'task_subtree_since', plan: 'generic' },
  );
  const fingerprint = rows[0]?.fingerprint ?? null;
  if (fingerprint === null) return { kind: 'missing' };
  if (rows[0]?.id === null) return { kind: 'unchanged', fingerprint };
  // The extra fingerprint column stays on the rows: the answer is built field by field (toTaskRead).
  for (const row of rows) parseTaskRow(row);
  return { kind: 'changed', fingerprint, rows };
}
