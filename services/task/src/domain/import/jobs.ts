import { type Orm, Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { AppError, type Clock, notFound } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import type { TaskConfig } from '../../config.js';
import { lockOwnerTree } from '../../db/task-sql.js';
import type { Importer } from './importer.js';
import type { RowError } from './plan.js';

export const JOB_STATUSES = ['queued', 'parsing', 'parsed', 'committing', 'committed', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export interface JobRow {
  id: string;
  tenant_id: string;
  user_id: string;
  status: JobStatus;
  total: number;
  valid: number;
  invalid: number;
  errors: RowError[];
  created_ids: string[];
  auto_schedule: boolean;
  schedule_run_id: string | null;
  attempts: number;
  lease_until: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export const JOB_COLUMNS = `id, tenant_id, user_id, status, total, valid, invalid, errors, created_ids, auto_schedule,
  schedule_run_id, attempts, lease_until, last_error, created_at, updated_at`;

export function toJobRead(job: JobRow) {
  return {
    job_id: job.id,
    status: job.status,
    total: job.total,
    valid: job.valid,
    invalid: job.invalid,
    errors: job.errors,
    created_ids: job.created_ids,
    auto_schedule: job.auto_schedule,
    schedule_run_id: job.schedule_run_id,
    created_at: new Date(job.created_at).toISOString(),
    updated_at: new Date(job.updated_at).toISOString(),
  };
}

/** Import jobs as the HTTP routes see them; the ImportWorker does the parsing and committing. */
export class ImportJobs {
  constructor(
    private readonly orm: Orm,
    private readonly clock: Clock,
    private readonly config: TaskConfig,
    private readonly importer: Importer,
    private readonly worker: { wake(): void },
  ) {}

  async create(owner: Owner, rows: readonly unknown[]): Promise<JobRow> {
    if (rows.length > this.config.IMPORT_JOB_MAX_ROWS) {
      throw new AppError('payload_too_large', `At most ${this.config.IMPORT_JOB_MAX_ROWS} rows per import job`);
    }
    const now = this.clock.now();
    const job = await Sql.transaction(this.orm, async (sql) => {
      await lockOwnerTree(sql, owner);
      await this.importer.consumeQuota(sql, owner, 'job');
      return sql.first<JobRow>(
        `insert into import_jobs (id, tenant_id, user_id, status, rows, total, valid, invalid, errors, created_ids,
           auto_schedule, schedule_run_id, attempts, lease_until, last_error, created_at, updated_at)
         values (?, ?, ?, 'queued', ?::jsonb, ?, 0, 0, '[]', '[]', false, null, 0, null, null, ?, ?)
         returning ${JOB_COLUMNS}`,
        [uuidv7(), owner.tenantId, owner.userId, JSON.stringify(rows), rows.length, now, now],
      );
    });
    if (!job) throw new Error('insert returned no job');
    this.worker.wake();
    return job;
  }

  async get(owner: Owner, id: string): Promise<JobRow> {
    const job = await Sql.pool(this.orm).first<JobRow>(
      `select ${JOB_COLUMNS} from import_jobs where id = ? and tenant_id = ? and user_id = ?`,
      [id, owner.tenantId, owner.userId],
    );
    if (!job) throw notFound('Import job');
    return job;
  }

  /**
   * Hands a parsed job without errors to the worker for its all-or-nothing commit. With `auto_schedule` the
   * worker's commit also asks for a scheduling run of the created tasks and records its id in `schedule_run_id`.
   */
  async commit(owner: Owner, id: string, autoSchedule: boolean): Promise<JobRow> {
    const now = this.clock.now();
    const job = await Sql.transaction(this.orm, async (sql) => {
      const current = await sql.first<JobRow>(
        `select ${JOB_COLUMNS} from import_jobs where id = ? and tenant_id = ? and user_id = ? for update`,
        [id, owner.tenantId, owner.userId],
      );
      if (!current) throw notFound('Import job');
      if (current.status === 'committing' || current.status === 'committed') return current;
      if (current.status !== 'parsed') {
        throw new AppError('conflict', `Job is ${current.status}; only a parsed job can be committed`);
      }
      if (current.invalid > 0) {
        throw new AppError('conflict', `Job has ${current.invalid} invalid rows; nothing can be committed`);
      }
      return sql.first<JobRow>(
        `update import_jobs set status = 'committing', auto_schedule = ?, lease_until = null, updated_at = ?
         where id = ? returning ${JOB_COLUMNS}`,
        [autoSchedule, now, id],
      );
    });
    if (!job) throw notFound('Import job');
    this.worker.wake();
    return job;
  }

  /** Cancels a job that has not committed; cancelling twice is harmless, a committed job is 409. */
  async cancel(owner: Owner, id: string): Promise<void> {
    const now = this.clock.now();
    await Sql.transaction(this.orm, async (sql) => {
      const current = await sql.first<{ status: JobStatus }>(
        'select status from import_jobs where id = ? and tenant_id = ? and user_id = ? for update',
        [id, owner.tenantId, owner.userId],
      );
      if (!current) throw notFound('Import job');
      if (current.status === 'committed') throw new AppError('conflict', 'A committed job cannot be cancelled');
      if (current.status === 'cancelled') return;
      await sql.rows(
        "update import_jobs set status = 'cancelled', lease_until = null, rows = '[]', updated_at = ? where id = ?",
        [now, id],
      );
    });
  }
}
