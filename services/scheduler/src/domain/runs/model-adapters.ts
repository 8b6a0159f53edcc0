import type { ProviderRegistry, placeWithModel } from '@routinely/llm';
import type { RunRow } from '../../db/runs-sql.js';
import type { ProviderErrorClass, ProviderOutcomes } from '../provider-outcomes.js';
import type { UsageService } from '../usage.js';
import type { ModelBatchDeps } from './batch.js';

/** The model side of a run: the configured provider's adapter, with the quota and health reporting around each call. */
export class RunModels {
  constructor(
    private readonly deps: {
      providers: ProviderRegistry;
      usage: UsageService;
      placeWithModel: typeof placeWithModel;
      /** Where each call's outcome goes for the admin health page's model registry (ADR 026). */
      outcomes: ProviderOutcomes;
    },
  ) {}

  /** The model side of a run's batches; null for builtin (or a provider whose key went away: the solver). */
  forRun(run: RunRow): ModelBatchDeps | null {
    if (run.provider !== 'openai' && run.provider !== 'anthropic') return null;
    const provider = run.provider;
    const adapter = this.deps.providers.adapter(provider);
    if (!adapter) return null;
    const owner = { tenantId: run.tenant_id, userId: run.user_id };
    return {
      adapter,
      placeWithModel: async (args) => {
        const result = await this.deps.placeWithModel(args);
        // A call the hard cap kept from being sent is no outcome of the provider's.
        if (result.failure === 'not_admitted') return result;
        if (result.failure)
          await this.deps.outcomes.report(owner.tenantId, provider, 'error', errorClassOf(result.failure));
        else if (result.usage) await this.deps.outcomes.report(owner.tenantId, provider, 'ok');
        return result;
      },
      timeoutMs: this.deps.providers.timeoutMs,
      reserve: async (budget) => {
        const estimateUsd = this.deps.providers.costUsd(run.model, budget);
        const hold = await this.deps.usage.checkAndReserve(owner, run.provider, estimateUsd, 'until_reached');
        return { allowed: hold.allowed, reservationId: hold.reservationId || null };
      },
      release: (reservationId) => this.deps.usage.release(owner, reservationId),
      record: async (sql, call) => {
        const timezone = await this.deps.usage.timezoneOf(owner);
        await this.deps.usage.recordIn(
          sql,
          owner,
          { runId: run.id, provider: run.provider, model: run.model, ...call },
          timezone,
        );
      },
    };
  }
}

/** The health page's class of a failed call (`placeWithModel`'s `failure`: timeout, aborted, network, rate_limited, http_<status>, invalid_answer). */
function errorClassOf(failure: string): ProviderErrorClass {
  if (failure === 'timeout' || failure === 'aborted') return 'timeout';
  if (failure === 'network' || failure === 'invalid_answer') return failure;
  return failure.startsWith('http_5') ? 'http_5xx' : 'http_4xx';
}
