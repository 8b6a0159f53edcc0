import type { Sql } from '@routinely/db';
import { recentDeadLettersReply } from '@routinely/events';
import { addRpcService, type InternalAuth, ownerOfCaller, parseRequest } from '@routinely/grpc';
import type { Clock, RpcServiceRegistry, Worker } from '@routinely/platform';
import { delivery_v1 } from '@routinely/proto';
import { z } from 'zod';
import { userSummary } from '../domain/user-summary.js';

/** A window of at most a week: the dashboard asks for the next 24 hours. */
const MAX_WINDOW_MS = 7 * 24 * 3_600_000;

const summaryRequest = z
  .object({ windowStart: z.iso.datetime({ offset: true }), windowEnd: z.iso.datetime({ offset: true }) })
  .transform((request) => ({ start: new Date(request.windowStart), end: new Date(request.windowEnd) }))
  .refine((w) => w.end > w.start && w.end.getTime() - w.start.getTime() <= MAX_WINDOW_MS, {
    path: ['windowEnd'],
    message: 'window_end must be after window_start, at most 7 days later',
  });

export interface DeliveryRpcDeps {
  db: Sql;
  clock: Clock;
  /** Its background workers: the health page reads their heartbeats. */
  workers: readonly Worker[];
}

/** The dashboard's and the health page's reads of the delivery service (proto delivery.v1). */
export function addDeliveryRpc(server: RpcServiceRegistry, auth: InternalAuth, deps: DeliveryRpcDeps): void {
  addRpcService(server, delivery_v1.DeliveryStatusServiceService, auth, {
    getUserSummary: async (request, caller) => {
      const owner = ownerOfCaller(caller, ['SERVICE_TASK_READ']);
      const window = parseRequest(summaryRequest, request);
      return userSummary(deps.db, owner, window);
    },
    getWorkerStatus: async (_request, caller) => {
      ownerOfCaller(caller, ['SERVICE_ADMIN']);
      return {
        workers: deps.workers.map((worker) => {
          const beat = worker.beat();
          return { ...beat, lastTickAt: beat.lastTickAt?.toISOString() ?? '' };
        }),
        // Which consumers gave up on events lately: operational, not any tenant's data.
        recentDeadLetters: await recentDeadLettersReply(deps.db, deps.clock.now()),
      };
    },
  });
}
