import { z } from 'zod';

/** The providers a run may name; `builtin` is the solver (always available, costs nothing). */
export const PROVIDER_NAMES = ['builtin', 'openai', 'anthropic'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];
export const providerName = z.enum(PROVIDER_NAMES);

/** USD per million input and output tokens. */
export interface ModelPrice {
  input: number;
  output: number;
}

/** Prices of the default models (USD per million tokens); LLM_PRICES overrides or adds entries. */
// The same list as @routinely/llm's pricing table (built in parallel); the lead may import that one instead.
export const BUILTIN_PRICES: Readonly<Record<string, ModelPrice>> = {
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4o': { input: 2.5, output: 10 },
  'claude-haiku-4-5': { input: 1, output: 5 },
  'claude-3-5-haiku-latest': { input: 0.8, output: 4 },
  'claude-sonnet-4-5': { input: 3, output: 15 },
  'claude-sonnet-4-0': { input: 3, output: 15 },
};

const priceEntry = z.object({ input: z.number().nonnegative(), output: z.number().nonnegative() });

/** `LLM_PRICES` as JSON; a malformed value fails the start naming the variable instead of pricing calls at 0. */
export const llmPricesSchema = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (!raw?.trim()) return {};
    try {
      const parsed = z.record(z.string(), priceEntry).safeParse(JSON.parse(raw));
      if (parsed.success) return parsed.data;
      ctx.addIssue({ code: 'custom', message: `LLM_PRICES: ${parsed.error.issues[0]?.message ?? 'invalid'}` });
    } catch {
      ctx.addIssue({ code: 'custom', message: 'LLM_PRICES is not valid JSON' });
    }
    return z.NEVER;
  });

export interface ProviderConfig {
  name: ProviderName;
  model: string;
  available: boolean;
  /** Only for language-model providers; never logged or returned. */
  apiKey?: string;
  baseUrl?: string;
}

/** The part of the service configuration the registry reads. */
export interface ProviderEnv {
  OPENAI_API_KEY?: string | undefined;
  OPENAI_BASE_URL: string;
  OPENAI_MODEL: string;
  ANTHROPIC_API_KEY?: string | undefined;
  ANTHROPIC_BASE_URL: string;
  ANTHROPIC_MODEL: string;
  LLM_PRICES: Record<string, ModelPrice>;
}

/**
 * What a model adapter does for the engine (the adapters in src/llm/ implement it): one slot-choosing call
 * with a deadline, answering the parsed answer and the tokens the provider billed.
 */
export interface ModelAdapter {
  readonly name: Exclude<ProviderName, 'builtin'>;
  readonly model: string;
  chooseSlots(
    request: unknown,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<{ answer: unknown; usage: { inputTokens: number; outputTokens: number } }>;
}

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

/** The configured providers and their prices, built once from the environment. */
export class ProviderRegistry {
  private readonly providers: Record<ProviderName, ProviderConfig>;
  private readonly prices: Record<string, ModelPrice>;

  constructor(env: ProviderEnv) {
    this.providers = {
      builtin: { name: 'builtin', model: 'builtin', available: true },
      openai: {
        name: 'openai',
        model: env.OPENAI_MODEL,
        available: Boolean(env.OPENAI_API_KEY),
        baseUrl: env.OPENAI_BASE_URL,
        ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
      },
      anthropic: {
        name: 'anthropic',
        model: env.ANTHROPIC_MODEL,
        available: Boolean(env.ANTHROPIC_API_KEY),
        baseUrl: env.ANTHROPIC_BASE_URL,
        ...(env.ANTHROPIC_API_KEY ? { apiKey: env.ANTHROPIC_API_KEY } : {}),
      },
    };
    this.prices = { ...BUILTIN_PRICES, ...env.LLM_PRICES };
  }

  /** The public listing: `{ name, model, available }`, no keys or addresses. */
  list(): { name: ProviderName; model: string; available: boolean }[] {
    return PROVIDER_NAMES.map((name) => {
      const { model, available } = this.providers[name];
      return { name, model, available };
    });
  }

  get(name: ProviderName): ProviderConfig {
    return this.providers[name];
  }

  /** Cost of one call in USD (6 decimals); `builtin` is free and a model missing from the table costs 0. */
  costUsd(provider: string, model: string, inputTokens: number, outputTokens: number): number {
    if (provider === 'builtin') return 0;
    const price = this.prices[model];
    if (!price) return 0;
    return round6((inputTokens * price.input + outputTokens * price.output) / 1_000_000);
  }

  priceOf(model: string): ModelPrice | undefined {
    return this.prices[model];
  }
}
