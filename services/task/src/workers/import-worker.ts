import type { Sql } from '@routinely/db';
import type { OutboxRelay } from '@routinely/events';
import type { Clock, PassResult } from '@routinely/platform';
import type { TaskConfig } from '../config.js';
import {
  type ClaimedJob,
  type JobStatus,
  jobRows,
  leaseJob,
  lockJobForCommit,
  lockNextClaimable,
  markCommitted,
  markFailed,
  markParsed,
} from '../db/import-job-sql.js';
import { lockOwnerTree } from '../db/task-sql.js';
import { requestAutoSchedule } from '../domain/import/auto-schedule.js';
import { planAgainstStore, writePlan } from '../domain/import/importer.js';

export type { ClaimedJob };

export interface ImportWorkerHooks {
  /** Test hook: runs after a job is claimed (its lease committed) and before it is processed. */
  afterClaim?: (job: ClaimedJob) => Promise<void>;
}

/**
 * Parses and commits import jobs; a Pacer (see app.ts) runs its passes in the background. A job is
 * claimed with FOR UPDATE SKIP LOCKED and leased until `now + IMPORT_JOB_LEASE_MS`; a worker that dies
 * leaves the lease to expire, and any instance (the restarted one or another replica) claims it again. Parsing is repeatable and a
 * commit is one transaction that also marks the job committed, so a retry never imports twice.
 */
export class ImportWorker {
  constructor(
    private readonly db: Sql,
    private readonly clock: Clock,
    private readonly config: TaskConfig,
    private readonly relay: Pick<OutboxRelay, 'kick'>,
    private readonly hooks: ImportWorkerHooks = {},
  ) {}

  /** One Pacer pass: claims and processes one job, and asks for another pass at once when it found one. */
  async pass(): Promise<PassResult> {
    const job = await this.claim();
    if (!job) return { more: false, nextAt: null };
    await this.hooks.afterClaim?.(job);
    if (job.status === 'parsing') await this.parse(job);
    else if (job.status === 'committing') await this.commit(job);
    return { more: true, nextAt: null };
  }

  private async claim(): Promise<ClaimedJob | undefined> {
    const now = this.clock.now();
    const leaseUntil = new Date(now.getTime() + this.config.IMPORT_JOB_LEASE_MS);
    return this.db.transaction(async (sql) => {
      const job = await lockNextClaimable(sql, now);
      if (!job) return undefined;
      if (job.attempts >= this.config.IMPORT_JOB_MAX_ATTEMPTS) {
        await markFailed(sql, job.id, 'the job failed repeatedly and was given up', now);
        return { ...job, status: 'failed' as const };
      }
      const status: JobStatus = job.status === 'committing' ? 'committing' : 'parsing';
      await leaseJob(sql, job.id, status, leaseUntil, now);
      return { ...job, status, attempts: job.attempts + 1 };
    });
  }

  private async parse(job: ClaimedJob): Promise<void> {
    const owner = { tenantId: job.tenant_id, userId: job.user_id };
    const sql = this.db;
    const plan = await planAgainstStore(sql, owner, await jobRows(sql, job.id));
    // Only a job still being parsed by this lease is updated: a cancellation in the meantime wins.
    await markParsed(sql, job.id, plan, this.clock.now());
  }

  private async commit(job: ClaimedJob): Promise<void> {
    const owner = { tenantId: job.tenant_id, userId: job.user_id };
    const now = this.clock.now();
    await this.db.transaction(async (sql) => {
      await lockOwnerTree(sql, owner);
      const current = await lockJobForCommit(sql, job.id);
      if (current?.status !== 'committing') return;
      // Re-planned under the lock: parents named by rows may have moved or gone since parsing.
      const plan = await planAgainstStore(sql, owner, current.rows);
      if (plan.invalid > 0) {
        await markFailed(sql, job.id, 'rows became invalid before the commit', now, plan);
        return;
      }
      const ids = await writePlan(sql, owner, plan, now);
      // auto_schedule: the run is asked for in this transaction and the job names it at once.
      const runId = current.auto_schedule && ids.length > 0 ? await requestAutoSchedule(sql, owner, ids, now) : null;
      await markCommitted(sql, job.id, ids, runId, now);
    });
    this.relay.kick();
  }
}
