import { costUsd, type ModelPrice, priceOf } from '@routinely/llm';
import { z } from 'zod';

// Prices, the price override schema and the model adapters come from @routinely/llm; this registry adds the
// service's view of each provider (availability, model) for the routes and the usage ledger.
export type { ModelAdapter, ModelPrice } from '@routinely/llm';

/** The providers a run may name; `builtin` is the solver (always available, costs nothing). */
export const PROVIDER_NAMES = ['builtin', 'openai', 'anthropic'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];
export const providerName = z.enum(PROVIDER_NAMES);

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
    this.prices = env.LLM_PRICES;
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
    const price = this.priceOf(model);
    if (!price) return 0;
    return costUsd({ inputTokens, outputTokens }, price);
  }

  priceOf(model: string): ModelPrice | undefined {
    return priceOf(model, this.prices);
  }
}
