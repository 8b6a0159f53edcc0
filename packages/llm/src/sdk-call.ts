import type { z } from 'zod';
import {
  CHOOSE_SLOTS_JSON_SCHEMA,
  CHOOSE_SLOTS_TOOL_NAME,
  type ChooseSlotsAnswer,
  type ChooseSlotsRequest,
  chooseSlotsAnswerSchema,
  chooseSlotsRequestSchema,
  SYSTEM_PROMPT,
} from './documents.js';
import { ModelCallError } from './errors.js';
import type { ChooseSlotsOptions, JsonCall, ModelProviderName, Usage } from './types.js';

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

/** Token counts as the provider reported them, at most `bound`; a compatible server that reports none costs 0. */
export function tokens(value: unknown, bound: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.min(Math.round(value), bound) : 0;
}

/**
 * Tokens added to a request's bytes for what the provider wraps around it (message framing, the tool-use
 * preamble Anthropic adds): generous, since the budget is an upper bound.
 */
const FRAMING_TOKENS = 1_000;

/**
 * The most a call can bill: every token of a byte-level tokenizer covers at least one byte, so the request's
 * UTF-8 bytes (plus framing) bound the input, and the request's own output bound caps the answer. The engine
 * reserves this much against the hard cap before the call; reported counts are clamped to it.
 */
export function callBudget(body: unknown, maxOutputTokens: number): Usage {
  return { inputTokens: Buffer.byteLength(JSON.stringify(body)) + FRAMING_TOKENS, outputTokens: maxOutputTokens };
}

/** Redirects are never followed from a model endpoint: a 3xx is a refusal (it may point at an internal address). */
export const NO_REDIRECTS = { redirect: 'manual' } as const;

/**
 * The answer's JSON as the provider sent it: a 2xx with a JSON content type whose body parses. The SDK's
 * own parsing trusts whatever came (an HTML page becomes a string, `null` a null), so it is not used.
 */
export async function readJson(
  who: { provider: ModelProviderName; model: string },
  response: Response,
): Promise<unknown> {
  const type = response.headers.get('content-type') ?? '';
  const invalid = (detail: string) => new ModelCallError(who.provider, who.model, 'invalid_answer', detail);
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(type.trim()))
    throw invalid(`the answer is not JSON (content type ${type.split(';')[0]?.trim().slice(0, 60) || 'missing'})`);
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    throw invalid(text.trim() === '' ? 'the answer is empty' : 'the answer is not JSON');
  }
}

/**
 * The answer's envelope checked by `schema`, with its usage read leniently first: an envelope of the wrong
 * shape that still reports tokens is an `invalid_answer` carrying them, so they are billed.
 */
export function parseEnvelope<S extends z.ZodType>(
  who: { provider: ModelProviderName; model: string },
  json: unknown,
  schema: S,
  usageOf: (json: unknown) => Usage,
): { envelope: z.infer<S>; usage: Usage } {
  const usage = usageOf(json);
  const parsed = schema.safeParse(json);
  if (parsed.success) return { envelope: parsed.data, usage };
  throw new ModelCallError(
    who.provider,
    who.model,
    'invalid_answer',
    `the answer envelope does not fit: ${summarize(parsed.error)}`,
    { usage },
  );
}

/** A run's call: the slot choice of a (checked) request, as one JSON call of either adapter. */
export function chooseSlotsCall(request: ChooseSlotsRequest): JsonCall {
  return {
    name: CHOOSE_SLOTS_TOOL_NAME,
    description: 'Record the chosen candidate slot of every task.',
    system: SYSTEM_PROMPT,
    user: JSON.stringify(request),
    schema: CHOOSE_SLOTS_JSON_SCHEMA,
  };
}
