import { addRpcService, type InternalAuth, ownerOfCaller, parseRequest } from '@routinely/grpc';
import type { RpcServiceRegistry } from '@routinely/platform';
import { scheduler_v1 } from '@routinely/proto';
import { z } from 'zod';
import { providerName } from '../domain/providers.js';
import type { SettingsService } from '../domain/settings.js';
import type { UsageService } from '../domain/usage.js';
import type { ExpandWorkingTime } from '../domain/working-time.js';

/** Working intervals are asked for a scheduling window, which spans at most 90 days (contract). */
const MAX_WINDOW_MS = 92 * 24 * 3_600_000;

const protoInstant = z
  .union([z.literal(''), z.iso.datetime({ offset: true })])
  .transform((value) => (value === '' ? null : new Date(value)));

const getSettingsRequest = z.object({ windowStart: protoInstant, windowEnd: protoInstant }).superRefine((r, ctx) => {
  // Refinements also run when a field already failed; only well-formed instants are compared.
  const start = r.windowStart instanceof Date ? r.windowStart : null;
  const end = r.windowEnd instanceof Date ? r.windowEnd : null;
  if ((r.windowStart === null) !== (r.windowEnd === null)) {
    ctx.addIssue({ code: 'custom', path: ['windowEnd'], message: 'window_start and window_end come together' });
  } else if (start && end && end <= start) {
    ctx.addIssue({ code: 'custom', path: ['windowEnd'], message: 'window_end must be after window_start' });
  } else if (start && end && end.getTime() - start.getTime() > MAX_WINDOW_MS) {
    ctx.addIssue({ code: 'custom', path: ['windowEnd'], message: 'the window spans at most 92 days' });
  }
});

/** Tokens one recorded call may report (RecordUsage from other services; the engine's own are budget-bound). */
const MAX_CALL_TOKENS = 100_000_000;

const reserveRequest = z.object({ provider: providerName, estimatedUsd: z.number().min(0).max(1_000_000) });

const recordRequest = z.object({
  runId: z.union([z.literal(''), z.uuid()]).transform((v) => (v === '' ? null : v)),
  provider: providerName,
  model: z.string().min(1).max(128),
  // Beyond any model's context window, and what keeps one call's cost inside the ledger's numeric(14,6).
  inputTokens: z.coerce.number().int().min(0).max(MAX_CALL_TOKENS),
  outputTokens: z.coerce.number().int().min(0).max(MAX_CALL_TOKENS),
  reservationId: z.union([z.literal(''), z.uuid()]).transform((v) => (v === '' ? null : v)),
});

export interface SchedulerRpcDeps {
  settings: SettingsService;
  usage: UsageService;
  expandWorkingTime: ExpandWorkingTime;
}

export function addSchedulerRpc(server: RpcServiceRegistry, auth: InternalAuth, deps: SchedulerRpcDeps): void {
  addRpcService(server, scheduler_v1.SettingsServiceService, auth, {
    getSettings: async (request, caller) => {
      const owner = ownerOfCaller(caller, ['SERVICE_SCHEDULE_RUN', 'SERVICE_SETTINGS_MANAGE']);
      const { windowStart, windowEnd } = parseRequest(getSettingsRequest, request);
      const s = await deps.settings.get(owner);
      let intervals: { start: Date; end: Date }[] = [];
      if (windowStart && windowEnd) {
        intervals = deps.expandWorkingTime({
          timezone: s.timezone,
          workingHours: s.working_hours,
          noGoWindows: s.no_go_windows,
          window: { start: windowStart, end: windowEnd },
        });
      }
      const policy = await deps.settings.policyOf(owner);
      return {
        userId: s.user_id,
        timezone: s.timezone,
        llmProviderDefault: s.llm_provider_default,
        llmProviderEffective: s.llm_provider_effective,
        reminderOffsetMin: s.reminder_offset_min,
        workingHoursJson: JSON.stringify(s.working_hours),
        noGoWindowsJson: JSON.stringify(s.no_go_windows),
        workingIntervals: intervals.map((i) => ({ start: i.start.toISOString(), end: i.end.toISOString() })),
        llmProviderTenantDefault: policy.llm_provider_tenant_default,
        llmProviderLocked: policy.llm_provider_locked,
      };
    },
  });

  addRpcService(server, scheduler_v1.QuotaServiceService, auth, {
    checkAndReserveQuota: async (request, caller) => {
      const owner = ownerOfCaller(caller, ['SERVICE_SCHEDULE_RUN']);
      const { provider, estimatedUsd } = parseRequest(reserveRequest, request);
      const r = await deps.usage.checkAndReserve(owner, provider, estimatedUsd);
      return {
        allowed: r.allowed,
        reservationId: r.reservationId,
        dailyUsd: r.dailyUsd,
        softCapUsd: r.softCapUsd,
        hardCapUsd: r.hardCapUsd,
        date: r.date,
      };
    },
    recordUsage: async (request, caller) => {
      const owner = ownerOfCaller(caller, ['SERVICE_SCHEDULE_RUN']);
      const call = parseRequest(recordRequest, request);
      const r = await deps.usage.record(owner, call);
      return {
        usageId: r.usageId,
        costUsd: r.costUsd,
        dailyUsd: r.dailyUsd,
        softBreached: r.soft_breached,
        hardBreached: r.hard_breached,
      };
    },
  });
}
