import { llmPricesSchema } from '@routinely/llm';
import { platformConfigSchema } from '@routinely/platform';
import { z } from 'zod';

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v?.trim() ? v.trim() : undefined));

/** The scheduler's environment; every variable has a default so the all-in-one host needs none. */
export const configSchema = platformConfigSchema.extend({
  /** A provider is available when its key is set (contract, area C). Keys never reach logs or answers. */
  OPENAI_API_KEY: optionalText,
  OPENAI_BASE_URL: z.url().default('https://api.openai.com/v1'),
  OPENAI_MODEL: z.string().min(1).default('gpt-4.1-mini'),
  ANTHROPIC_API_KEY: optionalText,
  ANTHROPIC_BASE_URL: z.url().default('https://api.anthropic.com'),
  ANTHROPIC_MODEL: z.string().min(1).default('claude-haiku-4-5'),
  /** JSON `{ "<model>": { "input": 0.4, "output": 1.6 } }`: USD per million tokens, over the built-in table. */
  LLM_PRICES: llmPricesSchema,
  /**
   * Bulk imports a user may start per rolling hour and day unless an administrator set their own limits
   * (moved here from the task service, which asks the scheduler at import time).
   */
  IMPORT_QUOTA_PER_HOUR: z.coerce.number().int().min(0).max(10_000).default(5),
  IMPORT_QUOTA_PER_DAY: z.coerce.number().int().min(0).max(10_000).default(20),
  /** How long a CheckAndReserveQuota reservation holds spend when RecordUsage never comes. */
  QUOTA_RESERVATION_TTL_MS: z.coerce.number().int().positive().default(300_000),
  SCHEDULER_OUTBOX_POLL_MS: z.coerce.number().int().positive().default(500),
});
export type SchedulerConfig = z.infer<typeof configSchema>;
