import { column, row, type Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { z } from 'zod';
import type { TaskTextRow } from '../domain/task-model.js';
import { childrenOf, TASK_COLUMNS, taskTextRow } from './task-sql.js';

/**
 * The owner's tree version: '0' before the first bump. A trigger adds 1 in every transaction that changes one
 * of the owner's trees (migration Migration20261125170241), so equal versions in two snapshots mean equal
 * trees. One primary-key row: the whole check of an unchanged tree read (batched: `treeVersions`).
 */
const TREE_VERSION = `select coalesce(
       (select version::text from task_tree_versions where tenant_id = ? and user_id = ?), '0'
     ) as tree_version`;

/**
 * The tree versions of several owners in one statement, in the owners' order: concurrent checks of stored
 * answers share it (TaskTreeAnswers), one round trip for many reads. Each owner is one primary-key lookup.
 */
const TREE_VERSIONS = `select k.ord, coalesce(v.version::text, '0') as tree_version
     from unnest(?::uuid[], ?::uuid[]) with ordinality as k(tenant_id, user_id, ord)
     left join task_tree_versions v on v.tenant_id = k.tenant_id and v.user_id = k.user_id`;

const treeVersionRow = row({ ord: column.bigint, tree_version: column.text });

export async function treeVersions(sql: Sql, owners: readonly Owner[]): Promise<string[]> {
  const rows = await sql.rows(
    treeVersionRow,
    TREE_VERSIONS,
    [owners.map((o) => o.tenantId), owners.map((o) => o.userId)],
    'task_tree_versions',
  );
  const versions = owners.map(() => '0');
  for (const found of rows) versions[found.ord - 1] = found.tree_version;
  return versions;
}

/**
 * The subtree and the owner's tree version in one statement, so from one snapshot: the answer built from these
 * rows belongs to exactly this version. Walked by id and parent only (primary key and tasks_parent_idx, one probe
 * per parent: childrenOf; children always share their parent's owner), the owner's rows kept, parents
 * before children and siblings in order. Not the owner's task: one row with the version and null columns.
 */
const SUBTREE_WITH_VERSION = `with recursive sub as (
       select ${TASK_COLUMNS} from tasks where id = ?
       union all
       select ${TASK_COLUMNS.replace(/(\w+)/g, 'c.$1')} from ${childrenOf('sub')}
     ), stamp as materialized (${TREE_VERSION})
     select stamp.tree_version, owned.* from stamp
     left join (select * from sub where tenant_id = ? and user_id = ?) owned on true
     order by owned.depth, owned.sort_order, owned.id`;

/**
 * A row of `SUBTREE_WITH_VERSION`: a task with the version, or (not the owner's task) the version alone. A task
 * row fits the first schema, which the union tries first.
 */
const subtreeWithVersionRow = z.union([
  taskTextRow.extend({ tree_version: column.text }),
  row({ tree_version: column.text, id: z.null() }),
]);

type Versioned = { tree_version: string };

/** The rows of the subtree of `rootId` (none: not the owner's task) with the owner's tree version. */
export async function subtreeWithVersion(
  sql: Sql,
  owner: Owner,
  rootId: string,
): Promise<{ version: string; rows: TaskTextRow[] }> {
  const rows = await sql.rows(
    subtreeWithVersionRow,
    SUBTREE_WITH_VERSION,
    [rootId, owner.tenantId, owner.userId, owner.tenantId, owner.userId],
    'task_subtree_with_version',
  );
  const first = rows[0];
  // Timestamps stay PostgreSQL's text (both pools parse types alike, read-pool.ts): toTaskRead formats them
  // without Dates. The extra tree_version column stays on the rows: the answer is built field by field.
  if (!first || first.id === null) return { version: first?.tree_version ?? '0', rows: [] };
  return {
    version: first.tree_version,
    rows: rows.filter((task): task is TaskTextRow & Versioned => task.id !== null),
  };
}
