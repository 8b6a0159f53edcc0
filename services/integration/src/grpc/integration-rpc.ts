import type { Sql } from '@routinely/db';
import { recentDeadLettersReply } from '@routinely/events';
import { addRpcService, type InternalAuth, ownerOfCaller } from '@routinely/grpc';
import type { Clock, RpcServiceRegistry, Worker } from '@routinely/platform';
import { integration_v1 } from '@routinely/proto';
import { countConnected, tenantIntegrationHealth } from '../db/status-sql.js';
import { CHANNEL_RENEW_BEFORE_MS } from '../domain/channels.js';

export interface IntegrationRpcDeps {
  db: Sql;
  clock: Clock;
  /** Its background workers: the health page reads their heartbeats. */
  workers: readonly Worker[];
}

/** The dashboard's and the health page's reads of the integration service (proto integration.v1). */
export function addIntegrationRpc(server: RpcServiceRegistry, auth: InternalAuth, deps: IntegrationRpcDeps): void {
  addRpcService(server, integration_v1.IntegrationStatusServiceService, auth, {
    getUserSummary: async (_request, caller) => {
      const owner = ownerOfCaller(caller, ['SERVICE_TASK_READ']);
      return { integrationsConnected: await countConnected(deps.db, owner.tenantId, owner.userId) };
    },
    getIntegrationHealth: async (_request, caller) => {
      // Counts stay within the administrator's own tenant.
      const { tenantId } = ownerOfCaller(caller, ['SERVICE_ADMIN']);
      const now = deps.clock.now();
      const health = await tenantIntegrationHealth(
        deps.db,
        tenantId,
        now,
        new Date(now.getTime() + CHANNEL_RENEW_BEFORE_MS),
      );
      return {
        byStatus: health.byStatus,
        channelsNearExpiry: health.nearExpiry,
        channelsExpired: health.expired,
        writeBackFailing: health.writeBackFailing,
        workers: deps.workers.map((worker) => {
          const beat = worker.beat();
          return { ...beat, lastTickAt: beat.lastTickAt?.toISOString() ?? '' };
        }),
        // Which consumers gave up on events lately: operational, not any tenant's data.
        recentDeadLetters: await recentDeadLettersReply(deps.db, now),
      };
    },
  });
}
