import { createRpcClient, type InternalAuth } from '@routinely/grpc';
import type { Owner } from '@routinely/platform';
import { scheduler_v1 } from '@routinely/proto';
import type { ImportQuota, ImportQuotaAnswer } from '../domain/import/import-quota.js';

/**
 * The import limits the scheduler's administrators set, asked at import time (ADR 050): a PATCH holds for
 * the user's next import at once. When the scheduler cannot answer, the import fails with its error (503)
 * rather than running unlimited.
 */
export class SchedulerImportQuota implements ImportQuota {
  private readonly client;

  constructor(address: string, internalAuth: InternalAuth, deadlineMs = 3_000) {
    this.client = createRpcClient(scheduler_v1.QuotaServiceService, address, internalAuth, {
      defaultDeadlineMs: deadlineMs,
    });
  }

  async consume(owner: Owner, kind: 'sync' | 'job'): Promise<ImportQuotaAnswer> {
    // The import route already required SERVICE_TASK_BULK_IMPORT of this user; the token says so.
    const answer = await this.client.consumeImportQuota(
      { kind },
      { actor: { tenantId: owner.tenantId, userId: owner.userId, permissions: ['SERVICE_TASK_BULK_IMPORT'] } },
    );
    return {
      allowed: answer.allowed,
      perHour: answer.perHour,
      perDay: answer.perDay,
      retryAfterS: answer.retryAfterS,
    };
  }

  close(): void {
    this.client.close();
  }
}
