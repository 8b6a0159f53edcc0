import type { Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { AppError, type Clock, notFound } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import type { TaskConfig } from '../../config.js';
import { findJob, insertJob, type JobRow, markCancelled, markCommitting } from '../../db/import-job-sql.js';
import { lockOwnerTree } from '../../db/task-sql.js';
import type { Importer } from './importer.js';

export { JOB_STATUSES } from '../../db/import-job-sql.js';

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
    created_at: job.created_at.toISOString(),
    updated_at: job.updated_at.toISOString(),
  };
}

/** Import jobs as the HTTP routes see them; the ImportWorker does the parsing and committing. */
export class ImportJobs {
  constructor(
    private readonly db: Sql,
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
    const job = await this.db.transaction(async (sql) => {
      await lockOwnerTree(sql, owner);
      await this.importer.consumeQuota(sql, owner, 'job');
      return insertJob(sql, owner, { id: uuidv7(), rows, at: now });
    });
    if (!job) throw new Error('insert returned no job');
    this.worker.wake();
    return job;
  }

  async get(owner: Owner, id: string): Promise<JobRow> {
    const job = await findJob(this.db, owner, id);
    if (!job) throw notFound('Import job');
    return job;
  }

  /**
   * Hands a parsed job without errors to the worker for its all-or-nothing commit. With `auto_schedule` the
   * worker's commit also asks for a scheduling run of the created tasks and records its id in `schedule_run_id`.
   */
  async commit(owner: Owner, id: string, autoSchedule: boolean): Promise<JobRow> {
    const now = this.clock.now();
    const job = await this.db.transaction(async (sql) => {
      const current = await findJob(sql, owner, id, { forUpdate: true });
      if (!current) throw notFound('Import job');
      if (current.status === 'committing' || current.status === 'committed') return current;
      if (current.status !== 'parsed') {
        throw new AppError('conflict', `Job is ${current.status}; only a parsed job can be committed`);
      }
      if (current.invalid > 0) {
        throw new AppError('conflict', `Job has ${current.invalid} invalid rows; nothing can be committed`);
      }
      return markCommitting(sql, id, autoSchedule, now);
    });
    if (!job) throw notFound('Import job');
    this.worker.wake();
    return job;
  }

  /** Cancels a job that has not committed; cancelling twice is harmless, a committed job is 409. */
  async cancel(owner: Owner, id: string): Promise<void> {
    const now = this.clock.now();
    await this.db.transaction(async (sql) => {
      const current = await findJob(sql, owner, id, { forUpdate: true });
      if (!current) throw notFound('Import job');
      if (current.status === 'committed') throw new AppError('conflict', 'A committed job cannot be cancelled');
      if (current.status === 'cancelled') return;
      await markCancelled(sql, id, now);
    });
  }
}
