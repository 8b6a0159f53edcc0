import type { z } from 'zod';
import {
  type ChooseSlotsAnswer,
  type ChooseSlotsRequest,
  chooseSlotsAnswerSchema,
  chooseSlotsRequestSchema,
} from './documents.js';
import { ModelCallError } from './errors.js';
import type { ChooseSlotsOptions, ModelProviderName, Usage } from './types.js';

/** The error classes both official SDKs export under the same names. */
export interface SdkErrors {
  APIError: new (...args: never[]) => Error & { status: number | undefined; requestID?: string | null };
  APIUserAbortError: new (...args: never[]) => Error;
  APIConnectionTimeoutError: new (...args: never[]) => Error;
  APIConnectionError: new (...args: never[]) => Error;
}

export const USER_AGENT = 'Routinely/1.0';

/**
 * The SDK's own per-attempt timeout, kept just past the call's budget so the deadline signal always ends a hung
 * attempt first: the SDK treats its own timeout as retryable and could still send a retry after the budget ran
 * out, while an aborted signal ends the call for good.
 */
export const attemptTimeoutMs = (budgetMs: number) => budgetMs + 1_000;

/**
 * Runs one SDK call under the call's whole time budget: a deadline signal bounds attempt + Retry-After wait +
 * retry, so a slow provider never holds a run longer than `timeoutMs` and a timeout is never retried. Every SDK
 * failure becomes a ModelCallError.
 */
export async function callWithDeadline<T>(
  who: { provider: ModelProviderName; model: string; errors: SdkErrors },
  options: ChooseSlotsOptions,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  try {
    return await call(signal);
  } catch (error) {
    throw toModelCallError(who, error, { deadline, caller: options.signal });
  }
}

function toModelCallError(
  who: { provider: ModelProviderName; model: string; errors: SdkErrors },
  error: unknown,
  signals: { deadline: AbortSignal; caller: AbortSignal | undefined },
): ModelCallError {
  const { provider, model, errors } = who;
  if (error instanceof ModelCallError) return error;
  if (signals.caller?.aborted) return new ModelCallError(provider, model, 'aborted', 'the call was cancelled');
  if (signals.deadline.aborted || error instanceof errors.APIConnectionTimeoutError)
    return new ModelCallError(provider, model, 'timeout', 'no answer within the time budget');
  if (error instanceof errors.APIUserAbortError)
    return new ModelCallError(provider, model, 'aborted', 'the call was cancelled');
  if (error instanceof errors.APIConnectionError)
    return new ModelCallError(provider, model, 'network', 'the provider could not be reached');
  if (error instanceof errors.APIError && typeof error.status === 'number') {
    const status = error.status;
    const requestId = error.requestID ?? undefined;
    const extra = requestId ? { status, requestId } : { status };
    if (status === 429) return new ModelCallError(provider, model, 'rate_limited', 'answered 429 after a retry', extra);
    if (status >= 500)
      return new ModelCallError(provider, model, 'server_error', `answered ${status} after a retry`, extra);
    return new ModelCallError(provider, model, 'refused', `answered ${status}`, extra);
  }
  return new ModelCallError(provider, model, 'network', 'the call failed without an HTTP answer');
}

/** The request is ours; a malformed one is a bug of the caller, reported before any tokens are spent. */
export function checkRequest(request: ChooseSlotsRequest): ChooseSlotsRequest {
  const parsed = chooseSlotsRequestSchema.safeParse(request);
  if (!parsed.success) throw new TypeError(`invalid choose-slots request: ${summarize(parsed.error)}`);
  return parsed.data;
}

/** The answer document, or an `invalid_answer` error carrying the tokens the answer cost. */
export function parseAnswer(
  who: { provider: ModelProviderName; model: string },
  document: unknown,
  usage: Usage,
): ChooseSlotsAnswer {
  const parsed = chooseSlotsAnswerSchema.safeParse(document);
  if (parsed.success) return parsed.data;
  throw new ModelCallError(
    who.provider,
    who.model,
    'invalid_answer',
    `answer does not fit: ${summarize(parsed.error)}`,
    {
      usage,
    },
  );
}

function summarize(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

/** Token counts as the provider reported them; a compatible server that reports none costs 0. */
export function tokens(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : 0;
}
