import type { Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { AppError, type Clock, fieldError, notFound } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import {
  type DependencyRow,
  deleteDependency,
  dependenciesTouching,
  dependsTransitively,
  edgeExists,
  insertDependencies,
} from '../db/dependency-sql.js';
import { findTask, findTasks, lockOwnerTree } from '../db/task-sql.js';
import type { DepType } from './task-model.js';

/** A dependency edge as the domain answers it, for the transports (the row of db/dependency-sql.ts). */
export type Dependency = DependencyRow;

export interface DependencyInput {
  task_id: string;
  depends_on_id: string;
  dep_type: DepType;
  lag_min: number;
}

export function toDependencyRead(row: DependencyRow) {
  return {
    id: row.id,
    task_id: row.task_id,
    depends_on_id: row.depends_on_id,
    dep_type: row.dep_type,
    lag_min: row.lag_min,
    created_at: row.created_at.toISOString(),
  };
}

/** Dependency edges between tasks of one owner; the graph stays acyclic. */
export class DependencyService {
  constructor(
    private readonly db: Sql,
    private readonly clock: Clock,
  ) {}

  async create(owner: Owner, input: DependencyInput): Promise<DependencyRow> {
    if (input.task_id === input.depends_on_id) {
      throw fieldError(['body', 'depends_on_id'], 'a task cannot depend on itself');
    }
    const now = this.clock.now();
    return this.db.transaction(async (sql) => {
      // Two racing edges a->b and b->a must not both pass the cycle check.
      await lockOwnerTree(sql, owner);
      const found = await findTasks(sql, owner, [input.task_id, input.depends_on_id]);
      if (found.length !== 2) throw notFound('Task');
      if (await edgeExists(sql, input.task_id, input.depends_on_id)) {
        throw new AppError('duplicate_dependency', 'This dependency already exists');
      }
      if (await dependsTransitively(sql, owner, input.depends_on_id, input.task_id)) {
        throw new AppError('cycle_detected', 'This dependency would close a cycle');
      }
      const [row] = await insertDependencies(sql, owner, [{ id: uuidv7(), ...input }], now);
      if (!row) throw new Error('insert returned no row');
      return row;
    });
  }

  async remove(owner: Owner, id: string): Promise<void> {
    const deleted = await deleteDependency(this.db, owner, id);
    if (!deleted) throw notFound('Dependency');
  }

  /** What the task waits for and what waits for it. */
  async forTask(owner: Owner, taskId: string) {
    const sql = this.db;
    if (!(await findTask(sql, owner, taskId))) throw notFound('Task');
    const edges = await dependenciesTouching(sql, owner, [taskId]);
    return {
      task_id: taskId,
      depends_on: edges.filter((e) => e.task_id === taskId).map(toDependencyRead),
      dependents: edges.filter((e) => e.depends_on_id === taskId).map(toDependencyRead),
    };
  }
}
