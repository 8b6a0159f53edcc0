import { llmConfigShape, refuseUnpricedModels } from '@routinely/llm';
import { platformConfigSchema } from '@routinely/platform';
import { z } from 'zod';

/**
 * The scheduler's environment; every variable has a default so the all-in-one host needs none. The provider
 * variables (keys, endpoints, models, `LLM_PRICES`, the call budget) are @routinely/llm's, and a configured
 * model without a price refuses to start: its spend would count as 0 and the hard cap would never hold.
 */
export const configSchema = platformConfigSchema
  .extend({
    ...llmConfigShape,
    QUOTA_RESERVATION_TTL_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(300_000)
      .describe('how long spend held by `CheckAndReserveQuota` waits for its `RecordUsage`'),
    SCHEDULER_OUTBOX_POLL_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(500)
      .describe('how often the outbox relay looks for unpublished events'),
    SCHEDULER_RUN_POLL_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(1_000)
      .describe(
        'safety-net poll of the run worker and the calendar-conflict worker (a queued run or a new check wakes them at once)',
      ),
    SCHEDULER_RUN_LEASE_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(120_000)
      .describe(
        'how long a claimed run (renewed every batch) or calendar-conflict check is held; after it another instance resumes it',
      ),
    SCHEDULER_RUN_BATCH_SIZE: z.coerce
      .number()
      .int()
      .min(1)
      .max(200)
      .default(10)
      .describe(
        'tasks a language-model run places per batch (one model call each); decisions and progress commit per batch',
      ),
    SCHEDULER_RUN_SOLVER_BATCH_SIZE: z.coerce
      .number()
      .int()
      .min(1)
      .max(1_000)
      .default(1_000)
      .describe(
        'tasks a builtin run places per batch: the solver plans every task left at once anyway, so a whole run is one batch (one read of the busy time, one apply)',
      ),
    SCHEDULER_RUN_MAX_ATTEMPTS: z.coerce
      .number()
      .int()
      .min(1)
      .default(5)
      .describe('claims of one run or calendar-conflict check before it is marked `failed`'),
    SCHEDULER_SETTINGS_WAIT_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(5_000)
      .describe(
        'how long PATCH /settings/me waits for the task service to apply a timezone change before answering (0 = no wait; ADR 029)',
      ),
    TASK_CALL_DEADLINE_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(10_000)
      .describe('deadline of each call to the task service (tasks, busy time, slots)'),
  })
  .superRefine(refuseUnpricedModels);
export type SchedulerConfig = z.infer<typeof configSchema>;
