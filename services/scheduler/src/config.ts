import { llmConfigShape, llmPricesSchema } from '@routinely/llm';
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
  /** Upper bound of one Anthropic answer (the Messages API requires one). */
  ANTHROPIC_MAX_TOKENS: llmConfigShape.ANTHROPIC_MAX_TOKENS,
  /** Budget of one model call, its one retry included; past it the batch falls back to the solver. */
  LLM_TIMEOUT_MS: llmConfigShape.LLM_TIMEOUT_MS,
  /** Safety-net poll of the run worker (a queued run wakes it at once). */
  SCHEDULER_RUN_POLL_MS: z.coerce.number().int().positive().default(1_000),
  /** How long a claimed run is held; renewed with every batch, taken again by any instance after it expires. */
  SCHEDULER_RUN_LEASE_MS: z.coerce.number().int().positive().default(120_000),
  /** Tasks placed per batch (one model call each); progress and decisions commit per batch. */
  SCHEDULER_RUN_BATCH_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  /** Claims of one run before it is marked failed. */
  SCHEDULER_RUN_MAX_ATTEMPTS: z.coerce.number().int().min(1).default(5),
  /** Deadline of each call to the task service (tasks, busy time, slots). */
  TASK_CALL_DEADLINE_MS: z.coerce.number().int().positive().default(10_000),
});
export type SchedulerConfig = z.infer<typeof configSchema>;
