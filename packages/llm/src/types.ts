import type { ChooseSlotsAnswer, ChooseSlotsRequest } from './documents.js';

export type ModelProviderName = 'openai' | 'anthropic';
export type ProviderName = 'builtin' | ModelProviderName;

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface ChooseSlotsOptions {
  /** Budget of the whole call, the one retry and its Retry-After wait included. */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface ChooseSlotsResult {
  answer: ChooseSlotsAnswer;
  usage: Usage;
}

/**
 * One call whose answer must be one JSON document of `schema`: OpenAI's strict `response_format` named `name`,
 * Anthropic's forced tool `name`. A run's slot choice is one; a captured text's fields another.
 */
export interface JsonCall {
  name: string;
  /** What the tool records (Anthropic's tool description). */
  description: string;
  system: string;
  user: string;
  /** JSON Schema of the answer, strict (every property required, no others). */
  schema: Record<string, unknown>;
}

export interface JsonCallResult {
  /** The answer document, parsed from JSON but not yet checked against anything. */
  document: unknown;
  usage: Usage;
}

/** One language-model provider. Every failure is a `ModelCallError`; nothing else is thrown. */
export interface ModelAdapter {
  name: ModelProviderName;
  model: string;
  /** The most the call of this request can bill (request bytes and the output bound): reserved before it. */
  budget(request: ChooseSlotsRequest): Usage;
  chooseSlots(request: ChooseSlotsRequest, options: ChooseSlotsOptions): Promise<ChooseSlotsResult>;
  /** What `callJson(call)` can bill at most, as `budget` for a run's call. */
  budgetOf(call: JsonCall): Usage;
  /** One call answering one JSON document; its shape is the caller's to check (an answer that is not JSON throws). */
  callJson(call: JsonCall, options: ChooseSlotsOptions): Promise<JsonCallResult>;
}
