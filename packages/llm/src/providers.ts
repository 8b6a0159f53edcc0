import { z } from 'zod';
import { AnthropicAdapter } from './anthropic-adapter.js';
import { OpenAiAdapter } from './openai-adapter.js';
import {
  costUsd,
  DEFAULT_ANTHROPIC_MODEL,
  DEFAULT_OPENAI_MODEL,
  llmPricesSchema,
  type ModelPrice,
  priceOf,
} from './pricing.js';
import type { ModelAdapter, ModelProviderName, ProviderName, Usage } from './types.js';

const optionalKey = z
  .string()
  .optional()
  .transform((value) => (value?.trim() ? value.trim() : undefined));

/**
 * The contract's provider variables, as fields to spread into a service's config schema
 * (`platformConfigSchema.extend({ ...llmConfigShape })`), checked with `.superRefine(refuseUnpricedModels)`.
 */
export const llmConfigShape = {
  OPENAI_API_KEY: optionalKey.describe(
    'OpenAI key; the `openai` provider is available when it is set (never logged or returned)',
  ),
  OPENAI_BASE_URL: z
    .url()
    .default('https://api.openai.com/v1')
    .describe('Chat Completions endpoint base (OpenAI or a compatible server)'),
  OPENAI_MODEL: z.string().min(1).default(DEFAULT_OPENAI_MODEL).describe('model of `openai` runs'),
  ANTHROPIC_API_KEY: optionalKey.describe('Anthropic key; the `anthropic` provider is available when it is set'),
  ANTHROPIC_BASE_URL: z.url().default('https://api.anthropic.com').describe('Messages API endpoint base'),
  ANTHROPIC_MODEL: z.string().min(1).default(DEFAULT_ANTHROPIC_MODEL).describe('model of `anthropic` runs'),
  // The Messages API requires one.
  ANTHROPIC_MAX_TOKENS: z.coerce
    .number()
    .int()
    .positive()
    .max(1_000_000)
    .default(8_192)
    .describe('upper bound of one Anthropic answer; with the request size, what a call reserves against the cap'),
  // Sent as `max_completion_tokens`, so the reservation is a real upper bound.
  OPENAI_MAX_TOKENS: z.coerce
    .number()
    .int()
    .positive()
    .max(1_000_000)
    .default(8_192)
    .describe('upper bound of one OpenAI answer; with the request size, what a call reserves against the cap'),
  LLM_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(30_000)
    .describe('budget of one model call, its one retry included; past it the batch falls back to the solver'),
  LLM_PRICES: llmPricesSchema.describe(
    'JSON `{ "<model>": { "input": 0.4, "output": 1.6 } }`, USD per million tokens, over the built-in price table',
  ),
};
const llmConfigSchema = z.object(llmConfigShape);
export type LlmConfig = z.infer<typeof llmConfigSchema>;

/**
 * Refuses to start with a provider whose model has no price: its spend would count as 0 and the hard cap
 * would never hold. Only providers with a key are checked (the others cannot run).
 */
export function refuseUnpricedModels(config: LlmConfig, ctx: z.RefinementCtx): void {
  const configured: [string | undefined, string, string][] = [
    [config.OPENAI_API_KEY, config.OPENAI_MODEL, 'OPENAI_MODEL'],
    [config.ANTHROPIC_API_KEY, config.ANTHROPIC_MODEL, 'ANTHROPIC_MODEL'],
  ];
  for (const [key, model, variable] of configured) {
    if (key && !priceOf(model, config.LLM_PRICES))
      ctx.addIssue({ code: 'custom', path: [variable], message: `no price for model ${model}: add it to LLM_PRICES` });
  }
}

export interface ProviderInfo {
  name: ProviderName;
  model: string;
  available: boolean;
}

/** The model name runs of the builtin provider carry. */
export const BUILTIN_MODEL = 'solver';

/** `builtin`, `openai` and `anthropic` as configured: what `GET /llm/providers` lists and runs call. */
export class ProviderRegistry {
  private readonly adapters = new Map<ModelProviderName, ModelAdapter>();

  constructor(
    private readonly config: LlmConfig,
    adapters: Partial<Record<ModelProviderName, ModelAdapter>> = {},
  ) {
    const openai = adapters.openai ?? (config.OPENAI_API_KEY ? this.openai(config.OPENAI_API_KEY) : undefined);
    const anthropic =
      adapters.anthropic ?? (config.ANTHROPIC_API_KEY ? this.anthropic(config.ANTHROPIC_API_KEY) : undefined);
    if (openai) this.adapters.set('openai', openai);
    if (anthropic) this.adapters.set('anthropic', anthropic);
  }

  list(): ProviderInfo[] {
    return [
      { name: 'builtin', model: BUILTIN_MODEL, available: true },
      { name: 'openai', model: this.config.OPENAI_MODEL, available: this.adapters.has('openai') },
      { name: 'anthropic', model: this.config.ANTHROPIC_MODEL, available: this.adapters.has('anthropic') },
    ];
  }

  /** One provider's listing entry. */
  get(name: ProviderName): ProviderInfo {
    return this.list().find((provider) => provider.name === name) as ProviderInfo;
  }

  /** The adapter of an available model provider; undefined when its key is not set (`provider_unavailable`). */
  adapter(name: ModelProviderName): ModelAdapter | undefined {
    return this.adapters.get(name);
  }

  get timeoutMs(): number {
    return this.config.LLM_TIMEOUT_MS;
  }

  priceOf(model: string): ModelPrice | undefined {
    return priceOf(model, this.config.LLM_PRICES);
  }

  /**
   * USD of a call, 6 decimals; 0 for the builtin solver. A configured model always has a price (refused at
   * start-up otherwise); a model only a caller names (gRPC RecordUsage) and the table lacks costs 0.
   */
  costUsd(model: string, usage: Usage): number {
    const price = model === BUILTIN_MODEL ? undefined : this.priceOf(model);
    return price ? costUsd(usage, price) : 0;
  }

  private openai(apiKey: string): ModelAdapter {
    return new OpenAiAdapter({
      apiKey,
      baseURL: this.config.OPENAI_BASE_URL,
      model: this.config.OPENAI_MODEL,
      maxTokens: this.config.OPENAI_MAX_TOKENS,
    });
  }

  private anthropic(apiKey: string): ModelAdapter {
    return new AnthropicAdapter({
      apiKey,
      baseURL: this.config.ANTHROPIC_BASE_URL,
      model: this.config.ANTHROPIC_MODEL,
      maxTokens: this.config.ANTHROPIC_MAX_TOKENS,
    });
  }
}

/** Parses the provider variables alone (tests, tools); services spread `llmConfigShape` into their schema. */
export function parseLlmConfig(env: Record<string, string | undefined>): LlmConfig {
  return llmConfigSchema.superRefine(refuseUnpricedModels).parse(env);
}
