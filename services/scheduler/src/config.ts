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
    /**
     * Bulk imports a user may start per rolling hour and day unless an administrator set their own limits
     * (moved here from the task service, which asks the scheduler at import time).
     */
    IMPORT_QUOTA_PER_HOUR: z.coerce.number().int().min(0).max(10_000).default(5),
    IMPORT_QUOTA_PER_DAY: z.coerce.number().int().min(0).max(10_000).default(20),
    /** How long a CheckAndReserveQuota reservation holds spend when RecordUsage never comes. */
    QUOTA_RESERVATION_TTL_MS: z.coerce.number().int().positive().default(300_000),
    SCHEDULER_OUTBOX_POLL_MS: z.coerce.number().int().positive().default(500),
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
  })
  .superRefine(refuseUnpricedModels);
export type SchedulerConfig = z.infer<typeof configSchema>;
