import { createRpcClient, type InternalAuth } from '@routinely/grpc';
import type { Owner } from '@routinely/platform';
import { scheduler_v1 } from '@routinely/proto';
import type { ScheduleStarter } from '../domain/import/auto-schedule.js';

/** The scheduler's StartRun: an import with `auto_schedule` queues a background run of the created tasks. */
export class SchedulerRuns implements ScheduleStarter {
  private readonly client;

  constructor(address: string, internalAuth: InternalAuth, deadlineMs = 3_000) {
    this.client = createRpcClient(scheduler_v1.RunServiceService, address, internalAuth, {
      defaultDeadlineMs: deadlineMs,
    });
  }

  async startRun(owner: Owner, taskIds: readonly string[]): Promise<string> {
    // The import route already required SERVICE_TASK_BULK_IMPORT of this user; the scheduler accepts it.
    const answer = await this.client.startRun(
      { taskIds: [...taskIds] },
      { actor: { tenantId: owner.tenantId, userId: owner.userId, permissions: ['SERVICE_TASK_BULK_IMPORT'] } },
    );
    return answer.runId;
  }

  close(): void {
    this.client.close();
  }
}
