import { type JsonCallResult, ModelCallError, type ProviderRegistry } from '@routinely/llm';
import { AppError, type Clock, type Owner } from '@routinely/platform';
import { type CapturedTask, parseTaskText } from '@routinely/scheduling';
import { localDateOf } from '@routinely/time';
import type { ProviderErrorClass, ProviderOutcomes } from '../provider-outcomes.js';
import type { ProviderName } from '../providers.js';
import type { UsageService } from '../usage.js';
import { captureCall, capturedFieldsOf } from './capture-call.js';

/** What `POST /tasks/parse` answers: the fields the text says, who read them, and what the request cost. */
export interface CaptureAnswer {
  fields: CapturedTask;
  provider: ProviderName;
  model: string | null;
  cost_usd: number;
}

export interface CaptureDeps {
  clock: Clock;
  providers: ProviderRegistry;
  usage: UsageService;
  outcomes: ProviderOutcomes;
  /** The effective provider by the runs' rules, refused as a run is (422 unavailable, 429 at the hard cap). */
  chooseProvider(owner: Owner, requested: ProviderName | undefined): Promise<{ name: ProviderName }>;
}

/**
 * Capture from text (ADR 062): the builtin parser (free, deterministic), or ONE call of the effective model
 * provider, reserved and recorded in the usage ledger like a run's call. Whatever keeps the model's fields from
 * being used (no answer, an answer that is not the document) gives the builtin parser's fields instead; tokens
 * an answer cost are recorded all the same.
 */
export class CaptureService {
  constructor(private readonly deps: CaptureDeps) {}

  async parse(owner: Owner, text: string, requested?: ProviderName): Promise<CaptureAnswer> {
    const { name } = await this.deps.chooseProvider(owner, requested);
    const now = this.deps.clock.now();
    const timezone = await this.deps.usage.timezoneOf(owner);
    const builtin = (costUsd: number): CaptureAnswer => ({
      fields: parseTaskText(text, { now, timezone }),
      provider: 'builtin',
      model: null,
      cost_usd: costUsd,
    });
    const adapter = name === 'builtin' ? undefined : this.deps.providers.adapter(name);
    if (!adapter) return builtin(0);

    const call = captureCall(text, now, timezone);
    const estimateUsd = this.deps.providers.costUsd(adapter.model, adapter.budgetOf(call));
    const hold = await this.deps.usage.checkAndReserve(owner, adapter.name, estimateUsd, 'until_reached');
    if (!hold.allowed) throw quotaExceeded();
    const reservationId = hold.reservationId || null;
    let result: JsonCallResult;
    try {
      result = await adapter.callJson(call, { timeoutMs: this.deps.providers.timeoutMs });
    } catch (error) {
      if (!(error instanceof ModelCallError)) {
        if (reservationId) await this.deps.usage.release(owner, reservationId);
        throw error;
      }
      await this.deps.outcomes.report(owner.tenantId, adapter.name, 'error', errorClassOf(error));
      // An answer that came but did not fit was billed: it is spent whichever fields the user gets.
      if (error.usage) {
        const spent = await this.record(owner, adapter, error.usage, reservationId);
        return builtin(spent);
      }
      if (reservationId) await this.deps.usage.release(owner, reservationId);
      return builtin(0);
    }
    const spent = await this.record(owner, adapter, result.usage, reservationId);
    const fields = capturedFieldsOf(result.document, localDateOf(now, timezone));
    if (!fields) {
      await this.deps.outcomes.report(owner.tenantId, adapter.name, 'error', 'invalid_answer');
      return builtin(spent);
    }
    await this.deps.outcomes.report(owner.tenantId, adapter.name, 'ok');
    return { fields, provider: adapter.name, model: adapter.model, cost_usd: spent };
  }

  private async record(
    owner: Owner,
    adapter: { name: ProviderName; model: string },
    usage: { inputTokens: number; outputTokens: number },
    reservationId: string | null,
  ): Promise<number> {
    const recorded = await this.deps.usage.record(owner, {
      runId: null,
      provider: adapter.name,
      model: adapter.model,
      ...usage,
      reservationId,
    });
    return recorded.costUsd;
  }
}

/** The runs' refusal at the hard cap (a reservation raced past the check of `chooseProvider`). */
function quotaExceeded(): AppError {
  return new AppError(
    'quota_exceeded',
    "Today's model spend reached the hard cap; the builtin parser still reads text",
  );
}

/** The health page's class of a failed call. */
function errorClassOf(error: ModelCallError): ProviderErrorClass {
  switch (error.failure) {
    case 'timeout':
    case 'aborted':
      return 'timeout';
    case 'network':
    case 'invalid_answer':
      return error.failure;
    case 'server_error':
      return 'http_5xx';
    default:
      return (error.status ?? 400) >= 500 ? 'http_5xx' : 'http_4xx';
  }
}
