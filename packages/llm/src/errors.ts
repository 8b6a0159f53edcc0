import type { ModelProviderName, Usage } from './types.js';

/**
 * Why a model call gave no usable answer. The engine falls back to the solver on every one of them.
 * - `timeout`: no answer within the call's time budget (retries included).
 * - `aborted`: the caller's signal ended the call.
 * - `rate_limited` / `server_error`: 429 / 5xx still after the one retry.
 * - `refused`: another 4xx (bad key, unknown model, request refused): retrying would not help.
 * - `network`: no HTTP answer (connection refused or reset).
 * - `invalid_answer`: an answer came, but not the document the contract fixes (not JSON, wrong shape, no
 *   `choose_slots` tool call, a refusal). Its tokens were spent: `usage` carries them, record them.
 */
export type ModelCallFailure =
  | 'timeout'
  | 'aborted'
  | 'rate_limited'
  | 'server_error'
  | 'refused'
  | 'network'
  | 'invalid_answer';

export class ModelCallError extends Error {
  constructor(
    readonly provider: ModelProviderName,
    readonly model: string,
    readonly failure: ModelCallFailure,
    /** Safe to log and to put into a rationale: never the provider's raw message (it may echo a key). */
    readonly detail: string,
    readonly extra: { status?: number; requestId?: string; usage?: Usage } = {},
  ) {
    super(`${provider} (${model}): ${failure}: ${detail}`);
    this.name = 'ModelCallError';
  }

  get status(): number | undefined {
    return this.extra.status;
  }

  /** Tokens the provider billed for an answer that turned out unusable (only for `invalid_answer`). */
  get usage(): Usage | undefined {
    return this.extra.usage;
  }
}
