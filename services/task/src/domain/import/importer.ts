import type { EntityManager, Orm } from '@routinely/db';
import type { OutboxRelay } from '@routinely/events';
import type { Owner } from '@routinely/platform';
import { AppError, type Clock } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import type { TaskConfig } from '../../config.js';
import { insertDependencies } from '../../db/dependency-sql.js';
import { Sql } from '../../db/sql.js';
import { findTasks, insertTasks } from '../../db/task-sql.js';
import { emitTaskEvent } from '../events.js';
import { type ImportPlan, planImport } from './plan.js';

export const SYNC_IMPORT_MAX_ROWS = 100;

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
  const positions = await sql.rows<{ parent_task_id: string | null; next: number }>(
    `select parent_task_id, (max(sort_order) + 1)::int as next from tasks
     where tenant_id = ? and user_id = ? and (parent_task_id is null or parent_task_id = any(?::uuid[]))
     group by parent_task_id`,
    [owner.tenantId, owner.userId, parentIds],
  );
  const next = new Map(positions.map((p) => [p.parent_task_id ?? 'root', p.next]));
  return planImport(rows, {
    existingDepth: (id) => parents.get(id),
    nextSortOrder: (parentId) => next.get(parentId ?? 'root') ?? 0,
  });
}

/** Writes a valid plan: tasks, their dependency edges and one created event each, in the caller's transaction. */
export async function writePlan(sql: Sql, em: EntityManager, owner: Owner, plan: ImportPlan, now: Date) {
  const rows = await insertTasks(sql, owner, plan.tasks, now);
  await insertDependencies(sql, owner, plan.dependencies, now);
  for (const row of rows) emitTaskEvent(em, 'taskCreated', row, now);
  return plan.tasks.map((t) => t.id);
}

/** Synchronous imports and the per-user import quota. */
export class Importer {
  constructor(
    private readonly orm: Orm,
    private readonly clock: Clock,
    private readonly config: TaskConfig,
    private readonly relay: Pick<OutboxRelay, 'kick'>,
  ) {}

  /**
   * Throws 429 when the owner has used the hourly or daily import quota; otherwise records one use.
   * Runs under the owner's lock, so racing imports cannot both take the last slot.
   */
  async consumeQuota(sql: Sql, owner: Owner, kind: 'sync' | 'job'): Promise<void> {
    const now = this.clock.now();
    const hourAgo = new Date(now.getTime() - 3_600_000);
    const dayAgo = new Date(now.getTime() - 86_400_000);
    const used = await sql.first<{ hour: number; day: number }>(
      `select count(*) filter (where at > ?)::int as hour, count(*)::int as day
       from import_usage where tenant_id = ? and user_id = ? and at > ?`,
      [hourAgo, owner.tenantId, owner.userId, dayAgo],
    );
    const { IMPORT_QUOTA_PER_HOUR: perHour, IMPORT_QUOTA_PER_DAY: perDay } = this.config;
    if ((used?.hour ?? 0) >= perHour || (used?.day ?? 0) >= perDay) {
      const window = (used?.hour ?? 0) >= perHour ? 'hour' : 'day';
      throw new AppError(
        'quota_exceeded',
        `Import quota exceeded: at most ${perHour} imports per hour and ${perDay} per day`,
        { headers: { 'Retry-After': window === 'hour' ? '3600' : '86400' } },
      );
    }
    await sql.rows('insert into import_usage (id, tenant_id, user_id, kind, at) values (?, ?, ?, ?, ?)', [
      uuidv7(),
      owner.tenantId,
      owner.userId,
      kind,
      now,
    ]);
  }

  /**
   * Validates up to 100 rows and, when `commit` is set and every row is valid, creates them all in one
   * transaction (all or nothing). Only a commit counts against the quota.
   */
  async importSync(owner: Owner, rows: readonly unknown[], commit: boolean): Promise<ImportResult> {
    if (rows.length > SYNC_IMPORT_MAX_ROWS) {
      throw new AppError(
        'payload_too_large',
        `At most ${SYNC_IMPORT_MAX_ROWS} rows per synchronous import; use /tasks/bulk-import/jobs`,
      );
    }
    const now = this.clock.now();
    const result = await Sql.transaction(this.orm, async (sql, em) => {
      await sql.lockOwner(owner.tenantId, owner.userId);
      const plan = await planAgainstStore(sql, owner, rows);
      const outcome = { total: plan.total, valid: plan.valid, invalid: plan.invalid, errors: plan.errors };
      if (!commit || plan.invalid > 0 || plan.total === 0) return { ...outcome, committed: false, created_ids: [] };
      await this.consumeQuota(sql, owner, 'sync');
      const ids = await writePlan(sql, em, owner, plan, now);
      return { ...outcome, committed: true, created_ids: ids };
    });
    if (result.committed) this.relay.kick();
    return result;
  }
}
