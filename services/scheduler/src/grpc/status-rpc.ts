import { addRpcService, type InternalAuth, ownerOfCaller, type Server } from '@routinely/grpc';
import { scheduler_v1_status } from '@routinely/proto';
import type { SchedulerContext } from '../domain/context.js';
import type { ProviderOutcomes } from '../domain/provider-outcomes.js';
import type { UsageService } from '../domain/usage.js';

export interface StatusRpcDeps {
  ctx: SchedulerContext;
  usage: UsageService;
  outcomes: ProviderOutcomes;
}

/** The dashboard's and the health page's reads of the scheduler (proto scheduler.v1 StatusService). */
export function addStatusRpc(server: Server, auth: InternalAuth, deps: StatusRpcDeps): void {
  addRpcService(server, scheduler_v1_status.StatusServiceService, auth, {
    getDailySummary: async (_request, caller) => {
      // The dashboard's permission: its reader sees their own spend, as /llm/usage/today shows it.
      const owner = ownerOfCaller(caller, ['SERVICE_TASK_READ']);
      const s = await deps.usage.status(owner);
      return { timezone: s.timezone, date: s.date, spendUsd: s.dailyUsd };
    },
    getModelRegistryStatus: async (_request, caller) => {
      // The caller's tenant only: another tenant's use of a model is not theirs to see (ADR 026).
      const admin = ownerOfCaller(caller, ['SERVICE_ADMIN']);
      const providers = await deps.outcomes.status(deps.ctx, admin.tenantId);
      return {
        providers: providers.map((p) => ({
          name: p.name,
          model: p.model,
          available: p.available,
          lastOutcome: p.last?.outcome ?? '',
          lastCallAt: p.last?.at.toISOString() ?? '',
          lastError: p.last?.error ?? '',
        })),
      };
    },
  });
}
