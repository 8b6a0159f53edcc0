import type { Sql } from '@routinely/db';
import type { Clock, Logger, PassResult } from '@routinely/platform';
import { claimDueCheck, failCheck, findCheck, leaseCheck, noteCheckError } from '../db/conflicts-sql.js';
import type { ConflictResolver } from '../domain/conflicts.js';

export interface ConflictWorkerConfig {
  leaseMs: number;
  maxAttempts: number;
}

/**
 * Conflict checks (ADR 058), one per pass of a Pacer like the run worker: a pending check is claimed with FOR
 * UPDATE SKIP LOCKED and leased, so replicas never take the same one and a worker that dies leaves it to the
 * next claim after the lease. A check failing `maxAttempts` times is marked failed with the reason.
 */
export class ConflictWorker {
  constructor(
    private readonly db: Sql,
    private readonly clock: Clock,
    private readonly resolver: ConflictResolver,
    private readonly config: ConflictWorkerConfig,
    private readonly logger: Logger,
  ) {}

  async pass(): Promise<PassResult> {
    const now = this.clock.now();
    const claimed = await this.db.transaction(async (sql) => {
      const check = await claimDueCheck(sql, now);
      if (!check) return undefined;
      if (check.attempts >= this.config.maxAttempts) {
        await failCheck(sql, check.id, now, check.error ?? 'the conflict check failed repeatedly and was given up');
        return { id: check.id, given_up: true };
      }
      await leaseCheck(sql, check.id, new Date(now.getTime() + this.config.leaseMs));
      return { id: check.id, given_up: false };
    });
    if (!claimed) return { more: false, nextAt: null };
    if (claimed.given_up) return { more: true, nextAt: null };
    try {
      const check = await findCheck(this.db, claimed.id);
      if (check) await this.resolver.resolve(check);
    } catch (error) {
      // The lease stays: the check is taken again once it expires (the task service may be back by then).
      this.logger.warn({ err: error, check_id: claimed.id }, 'schedule conflict check failed');
      await noteCheckError(this.db, claimed.id, error instanceof Error ? error.message : String(error));
      return { more: false, nextAt: null };
    }
    return { more: true, nextAt: null };
  }
}
