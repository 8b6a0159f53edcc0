import { z } from 'zod';
import type { Usage } from './types.js';

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
}
export type PriceTable = Readonly<Record<string, ModelPrice>>;

export const DEFAULT_OPENAI_MODEL = 'gpt-4.1-mini';
export const DEFAULT_ANTHROPIC_MODEL = 'claude-haiku-4-5';

/** List prices of the default models and their close relatives; `LLM_PRICES` overrides or adds. */
export const BUILTIN_PRICES: PriceTable = {
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

const priceSchema = z.object({ input: z.number().min(0), output: z.number().min(0) });

/** `LLM_PRICES` (JSON `{ "<model>": { "input": 0.4, "output": 1.6 } }`) as a zod schema for config parsing. */
export const llmPricesSchema = z
  .string()
  .optional()
  .transform((value, ctx): Record<string, ModelPrice> => {
    if (value === undefined || value.trim() === '') return {};
    let json: unknown;
    try {
      json = JSON.parse(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'LLM_PRICES must be JSON' });
      return z.NEVER;
    }
    const parsed = z.record(z.string().min(1), priceSchema).safeParse(json);
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message: 'LLM_PRICES: expected { "<model>": { "input": n, "output": n } }' });
      return z.NEVER;
    }
    return parsed.data;
  });

/**
 * The price of a model: an exact entry, else the longest entry the model name extends with a dash (a dated
 * snapshot such as `gpt-4.1-mini-2025-04-14` costs what `gpt-4.1-mini` costs). Overrides win over the table.
 */
export function priceOf(model: string, overrides: PriceTable = {}): ModelPrice | undefined {
  for (const table of [overrides, BUILTIN_PRICES]) {
    const exact = table[model];
    if (exact) return exact;
  }
  for (const table of [overrides, BUILTIN_PRICES]) {
    const prefix = Object.keys(table)
      .filter((name) => model.startsWith(`${name}-`))
      .sort((a, b) => b.length - a.length)[0];
    if (prefix) return table[prefix];
  }
  return undefined;
}

/**
 * Cost in millionths of a dollar, rounded half up: tokens x USD-per-million is exactly micro-USD, so one
 * rounding at the end is all there is (the 9-digit pass removes binary noise such as 3 x 0.35 = 1.0499...).
 */
export function costMicroUsd(usage: Usage, price: ModelPrice): number {
  const exact = usage.inputTokens * price.input + usage.outputTokens * price.output;
  return Math.round(Number(exact.toFixed(9)));
}

/** Cost in USD rounded to 6 decimals (the contract's amounts). */
export function costUsd(usage: Usage, price: ModelPrice): number {
  return costMicroUsd(usage, price) / 1_000_000;
}
