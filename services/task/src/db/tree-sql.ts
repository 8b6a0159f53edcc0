import type { Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import type { TaskTextRow } from '../domain/task-model.js';
import { TASK_COLUMNS } from './task-sql.js';

/**
 * One statement, so one snapshot: the owner's tree version (task_tree_versions, '0' before the first bump; a
 * trigger adds 1 in every transaction that changes one of the owner's trees, see the migration
 * Migration20261125170241) and, only when it differs from the caller's, the subtree: walked by id and parent only
 * (primary key and tasks_parent_idx; children always share their parent's owner), the owner's rows kept,
 * parents before children and siblings in order. `offset 0` keeps the lateral subquery from being flattened, so
 * the comparison is a one-time filter and an unchanged read never walks (query-plans.test.ts checks it).
 * Unchanged: one row, the version and null columns. Not the owner's task: one row with null columns too, told
 * apart by the caller (it knew no version, or the version moved).
 */
const SUBTREE_IF_CHANGED = `with stamp as materialized (
       select coalesce(
         (select version::text from task_tree_versions where tenant_id = ? and user_id = ?), '0'
       ) as tree_version
     )
     select stamp.tree_version, t.* from stamp left join lateral (
       with recursive sub as (
         select ${TASK_COLUMNS} from tasks where id = ?
         union all
         select ${TASK_COLUMNS.replace(/(\w+)/g, 'c.$1')} from tasks c join sub on c.parent_task_id = sub.id
       )
       select * from sub
       where tenant_id = ? and user_id = ? and stamp.tree_version is distinct from ?::text
       offset 0
     ) t on true
     order by t.depth, t.sort_order, t.id`;

export type SubtreeSince =
  | { kind: 'missing'; version: string }
  | { kind: 'unchanged'; version: string }
  | { kind: 'changed'; version: string; rows: TaskTextRow[] };

/**
 * The subtree of `rootId` unless the owner's tree version is still `known` (null: nothing known, always the
 * rows). A named prepared statement on the read pool with a generic plan: its plan cannot depend on the
 * parameters, and planning it for every read cost more than running it for a tree of 100 (issue 15).
 */
export async function subtreeSince(
  sql: Sql,
  owner: Owner,
  rootId: string,
  known: string | null,
): Promise<SubtreeSince> {
  const rows = await sql.rows<TaskTextRow & { tree_version: string }>(
    SUBTREE_IF_CHANGED,
    [owner.tenantId, owner.userId, rootId, owner.tenantId, owner.userId, known],
    { name: 'task_subtree_since', plan: 'generic' },
  );
  const first = rows[0];
  // The stamp always gives one row; none (a stand-in Sql in tests) reads as not found.
  if (!first) return { kind: 'missing', version: '' };
  const version = first.tree_version;
  // Timestamps stay PostgreSQL's text (both pools parse types alike, read-pool.ts): toTaskRead formats them
  // without Dates. The extra tree_version column stays on the rows: the answer is built field by field.
  if (first.id !== null) return { kind: 'changed', version, rows };
  return version === known ? { kind: 'unchanged', version } : { kind: 'missing', version };
}
