import { column, type Row, row, type Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { z } from 'zod';
import { DEP_TYPES, type DepType } from '../domain/task-model.js';

const dependencyRow = row({
  id: column.uuid,
  tenant_id: column.uuid,
  user_id: column.uuid,
  task_id: column.uuid,
  depends_on_id: column.uuid,
  dep_type: z.enum(DEP_TYPES),
  lag_min: column.integer,
  created_at: column.timestamp,
});
export type DependencyRow = Row<typeof dependencyRow>;

/** `select 1` of an existence check. */
const oneRow = row({});

const COLUMNS = 'id, tenant_id, user_id, task_id, depends_on_id, dep_type, lag_min, created_at';

export interface DependencyInsert {
  id: string;
  task_id: string;
  depends_on_id: string;
  dep_type: DepType;
  lag_min: number;
}

export async function insertDependencies(
  sql: Sql,
  owner: Owner,
  edges: DependencyInsert[],
  now: Date,
): Promise<DependencyRow[]> {
  if (edges.length === 0) return [];
  return sql.rows(
    dependencyRow,
    `insert into task_dependencies (${COLUMNS})
     select x.id, ?, ?, x.task_id, x.depends_on_id, x.dep_type, x.lag_min, ?
     from jsonb_to_recordset(?::jsonb) as x(id uuid, task_id uuid, depends_on_id uuid, dep_type text, lag_min int)
     returning ${COLUMNS}`,
    [owner.tenantId, owner.userId, now, JSON.stringify(edges)],
  );
}

export async function edgeExists(sql: Sql, taskId: string, dependsOnId: string): Promise<boolean> {
  const found = await sql.first(oneRow, 'select 1 from task_dependencies where task_id = ? and depends_on_id = ?', [
    taskId,
    dependsOnId,
  ]);
  return found !== undefined;
}

/** True when `from` already (transitively) depends on `to`: an edge to -> from would close a cycle. */
export async function dependsTransitively(sql: Sql, owner: Owner, from: string, to: string): Promise<boolean> {
  const found = await sql.first(
    oneRow,
    `with recursive reach as (
       select depends_on_id as id from task_dependencies where task_id = ? and tenant_id = ? and user_id = ?
       union
       select d.depends_on_id from task_dependencies d join reach on d.task_id = reach.id
     )
     select 1 from reach where id = ? limit 1`,
    [from, owner.tenantId, owner.userId, to],
  );
  return found !== undefined;
}

export async function deleteDependency(sql: Sql, owner: Owner, id: string): Promise<boolean> {
  const deleted = await sql.run(
    'delete from task_dependencies where id = ? and tenant_id = ? and user_id = ? returning id',
    [id, owner.tenantId, owner.userId],
  );
  return deleted > 0;
}

/** Every edge that starts or ends at one of `taskIds`. */
export async function dependenciesTouching(
  sql: Sql,
  owner: Owner,
  taskIds: readonly string[],
): Promise<DependencyRow[]> {
  return sql.rows(
    dependencyRow,
    `select ${COLUMNS} from task_dependencies
     where tenant_id = ? and user_id = ? and (task_id = any(?::uuid[]) or depends_on_id = any(?::uuid[]))
     order by id`,
    [owner.tenantId, owner.userId, taskIds, taskIds],
  );
}
