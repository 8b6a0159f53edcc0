import type { Sql } from '@routinely/db';
import { type EventEnvelope, enqueue, type OutboxRelay } from '@routinely/events';
import type { Owner } from '@routinely/platform';
import { AppError, type Clock } from '@routinely/platform';
import { insertDependencies } from '../../db/dependency-sql.js';
import { nextSortOrders } from '../../db/task-create-sql.js';
import { findTasks, insertTasks, lockOwnerTree } from '../../db/task-sql.js';
import { emitTaskEvent } from '../events.js';
import { requestAutoSchedule } from './auto-schedule.js';
import type { ImportQuota } from './import-quota.js';
import { type ImportPlan, planImport } from './plan.js';

const SYNC_IMPORT_MAX_ROWS = 100;

export interface ImportResult {
  total: number;
  valid: number;
  invalid: number;
  errors: ImportPlan['errors'];
  committed: boolean;
  created_ids: string[];
}

/** Plans rows against the owner's current tasks: the parents they name and the sibling positions. */
export async function planAgainstStore(sql: Sql, owner: Owner, rows: readonly unknown[]): Promise<ImportPlan> {
  const parentIds = [
    ...new Set(
      rows
        .map((r) => (r && typeof r === 'object' ? (r as { parent_task_id?: unknown }).parent_task_id : undefined))
        .filter((id): id is string => typeof id === 'string' && /^[0-9a-f-]{36}$/i.test(id)),
    ),
  ];
  const parents = new Map((await findTasks(sql, owner, parentIds)).map((t) => [t.id, t.depth]));
  const positions = await nextSortOrders(sql, owner, parentIds);
  const next = new Map(positions.map((p) => [p.parent_task_id ?? 'root', p.next]));
  return planImport(rows, {
    existingDepth: (id) => parents.get(id),
    nextSortOrder: (parentId) => next.get(parentId ?? 'root') ?? 0,
  });
}

/** Writes a valid plan: tasks, their dependency edges and one created event each, in the caller's transaction. */
export async function writePlan(sql: Sql, owner: Owner, plan: ImportPlan, now: Date) {
  const rows = await insertTasks(sql, owner, plan.tasks, now);
  await insertDependencies(sql, owner, plan.dependencies, now);
  const outbox: EventEnvelope[] = [];
  for (const row of rows) emitTaskEvent(outbox, 'taskCreated', row, now);
  await enqueue(sql, ...outbox);
  return plan.tasks.map((t) => t.id);
}

/** Synchronous imports and the per-user import quota. */
export class Importer {
  constructor(
    private readonly db: Sql,
    private readonly clock: Clock,
    private readonly relay: Pick<OutboxRelay, 'kick'>,
    private readonly quota: ImportQuota,
  ) {}

  /** Counts one import in the caller's transaction, under the owner's lock; 429 past the quota. */
  consumeQuota(sql: Sql, owner: Owner, kind: 'sync' | 'job'): Promise<void> {
    return this.quota.consume(sql, owner, kind);
  }

  /**
   * Validates up to 100 rows and, when `commit` is set and every row is valid, creates them all in one
   * transaction (all or nothing), with the auto_schedule request when asked. Only a commit counts against the
   * quota.
   */
  async importSync(
    owner: Owner,
    rows: readonly unknown[],
    options: { commit: boolean; autoSchedule: boolean },
  ): Promise<ImportResult> {
    const { commit } = options;
    if (rows.length > SYNC_IMPORT_MAX_ROWS) {
      throw new AppError(
        'payload_too_large',
        `At most ${SYNC_IMPORT_MAX_ROWS} rows per synchronous import; use /tasks/bulk-import/jobs`,
      );
    }
    const now = this.clock.now();
    const result = await this.db.transaction(async (sql) => {
      await lockOwnerTree(sql, owner);
      const plan = await planAgainstStore(sql, owner, rows);
      const outcome = { total: plan.total, valid: plan.valid, invalid: plan.invalid, errors: plan.errors };
      if (!commit || plan.invalid > 0 || plan.total === 0) return { ...outcome, committed: false, created_ids: [] };
      await this.consumeQuota(sql, owner, 'sync');
      const ids = await writePlan(sql, owner, plan, now);
      // auto_schedule: a background run of the created tasks (GET /schedule/runs/latest finds it).
      if (options.autoSchedule && ids.length > 0) await requestAutoSchedule(sql, owner, ids, now);
      return { ...outcome, committed: true, created_ids: ids };
    });
    if (result.committed) this.relay.kick();
    return result;
  }
}
