import type { Sql } from '@routinely/db';
import type { Clock, Logger, PassResult } from '@routinely/platform';
import { claimDueRun, failRun, leaseRun, noteRunError } from '../db/runs-sql.js';
import type { RunEngine } from '../domain/runs/run-engine.js';
import { runErrorOf } from '../domain/runs/run-errors.js';

const RUNS_AT_ONCE = 4;
/** Runs one lane takes in a pass before the pass ends (the next pass starts at once when there is more). */
const RUNS_PER_LANE = 25;

export interface RunWorkerConfig {
  leaseMs: number;
  maxAttempts: number;
}

/**
 * Background runs (more than 10 tasks) and runs whose process died: a Pacer (see app.ts) runs its passes. A
 * run is claimed with FOR UPDATE SKIP LOCKED and leased; the engine renews the lease with every batch, and a
 * worker that dies leaves the lease to expire, after which any instance claims the run and resumes it from its
 * committed batches. A run failing `maxAttempts` times is marked failed with the reason.
 */
export class RunWorker {
  constructor(
    private readonly db: Sql,
    private readonly clock: Clock,
    private readonly engine: RunEngine,
    private readonly config: RunWorkerConfig,
    private readonly logger: Logger,
  ) {}

  /**
   * Up to RUNS_AT_ONCE runs at a time: a run spends most of its time waiting on the task service and PostgreSQL
   * (a routine's fills queue one run per series), and runs of one user still take turns on the placement lock.
   * Each lane claims its next run as soon as its last one ended (a long run holds one lane, not the pass), up
   * to RUNS_PER_LANE runs, so a pass ends and the pacer's stop is heard.
   */
  async pass(): Promise<PassResult> {
    const lane = async () => {
      for (let i = 0; i < RUNS_PER_LANE; i++) {
        if (!(await this.claimAndExecute()).more) return false;
      }
      return true;
    };
    const outcomes = await Promise.all(Array.from({ length: RUNS_AT_ONCE }, lane));
    return { more: outcomes.some(Boolean), nextAt: null };
  }

  private async claimAndExecute(): Promise<PassResult> {
    const now = this.clock.now();
    const claimed = await this.db.transaction(async (sql) => {
      const run = await claimDueRun(sql, now);
      if (!run) return undefined;
      if (run.attempts >= this.config.maxAttempts) {
        await failRun(sql, run.id, now, run.error ?? 'run_failed: the run failed repeatedly and was given up');
        return { id: run.id, given_up: true };
      }
      await leaseRun(sql, run.id, now, new Date(now.getTime() + this.config.leaseMs));
      return { id: run.id, given_up: false };
    });
    if (!claimed) return { more: false, nextAt: null };
    if (!claimed.given_up) {
      try {
        await this.engine.execute(claimed.id);
      } catch (error) {
        // The lease stays: the run is taken again once it expires (the task service may be back by then).
        this.logger.warn({ err: error, run_id: claimed.id }, 'scheduling run pass failed');
        await noteRunError(this.db, claimed.id, runErrorOf(error));
        return { more: false, nextAt: null };
      }
    }
    return { more: true, nextAt: null };
  }
}
