import { Sql } from '@routinely/db';
import type { Clock } from '@routinely/platform';
import { lastRecordedCall } from '../db/status-sql.js';
import type { SchedulerContext } from './context.js';
import { PROVIDER_NAMES, type ProviderName } from './providers.js';

/** A fixed class of a failed model call; never the provider's message, which may echo a prompt or a key. */
export type ProviderErrorClass = 'timeout' | 'http_4xx' | 'http_5xx' | 'invalid_answer' | 'network';

interface Outcome {
  outcome: 'ok' | 'error';
  at: Date;
  error: ProviderErrorClass | null;
}

/**
 * The last outcome of each model provider's calls in one tenant, for that tenant's admin health page (ADR 026):
 * when and how another tenant last used a model is theirs to know. A call that succeeded is in the usage ledger
 * (shared by every replica, kept across restarts); a failed call costs nothing and leaves no ledger row, so
 * the caller of the model (the scheduling engine) reports it here, in this process's memory, per tenant. The
 * newer of the two is the provider's last call.
 */
export class ProviderOutcomes {
  private readonly reported = new Map<string, Map<ProviderName, Outcome>>();

  constructor(private readonly clock: Clock) {}

  /** Called by whoever calls a model, after each call, with the tenant it called for. */
  report(tenantId: string, provider: ProviderName, outcome: 'ok' | 'error', error: ProviderErrorClass | null = null) {
    const ofTenant = this.reported.get(tenantId) ?? new Map<ProviderName, Outcome>();
    ofTenant.set(provider, { outcome, at: this.clock.now(), error: outcome === 'error' ? error : null });
    this.reported.set(tenantId, ofTenant);
  }

  async status(ctx: SchedulerContext, tenantId: string) {
    const sql = Sql.pool(ctx.orm);
    return Promise.all(
      PROVIDER_NAMES.map(async (name) => {
        const { model, available } = ctx.providers.get(name);
        const recorded = await lastRecordedCall(sql, tenantId, name);
        const reported = this.reported.get(tenantId)?.get(name);
        const last: Outcome | null =
          reported && (!recorded || reported.at >= recorded)
            ? reported
            : recorded
              ? { outcome: 'ok', at: recorded, error: null }
              : null;
        return { name, model, available, last };
      }),
    );
  }
}
