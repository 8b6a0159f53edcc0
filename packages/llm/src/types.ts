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

/** One language-model provider. Every failure is a `ModelCallError`; nothing else is thrown. */
export interface ModelAdapter {
  name: ModelProviderName;
  model: string;
  /** The most the call of this request can bill (request bytes and the output bound): reserved before it. */
  budget(request: ChooseSlotsRequest): Usage;
  chooseSlots(request: ChooseSlotsRequest, options: ChooseSlotsOptions): Promise<ChooseSlotsResult>;
}
