import { platformConfigSchema } from '@routinely/platform';
import { z } from 'zod';

/** The task service's environment; every variable has a default so the all-in-one host needs none. */
export const configSchema = platformConfigSchema.extend({
  // The import limits themselves live in the scheduler (IMPORT_QUOTA_PER_* and the administrator's overrides).
  SCHEDULER_CALL_DEADLINE_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(3_000)
    .describe("deadline of the task service's calls to the scheduler (import quota)"),
  DASHBOARD_CALL_DEADLINE_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(2_000)
    .describe(
      "deadline of each dashboard-summary and admin-health call to the scheduler, delivery and integration (and of the health page's database and Redis probes); a late owner's figures are null",
    ),
  IMPORT_JOB_MAX_ROWS: z.coerce
    .number()
    .int()
    .positive()
    .default(10_000)
    .describe('largest import job (the synchronous import is fixed at 100 rows by the spec)'),
  IMPORT_WORKER_POLL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(500)
    .describe('how often the import worker looks for work'),
  IMPORT_JOB_LEASE_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(60_000)
    .describe('how long a claimed import job stays leased to one worker'),
  IMPORT_JOB_MAX_ATTEMPTS: z.coerce
    .number()
    .int()
    .positive()
    .default(5)
    .describe('claims of an import job that keeps crashing its worker before it is marked failed'),
  ROUTINE_FILL_POLL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(60_000)
    .describe('how often the routine worker looks for series due for a fill (each is refilled hourly to its horizon)'),
  // Every read still asks PostgreSQL whether the subtree changed (domain/tree-answers.ts), so the size trades
  // memory for CPU, never freshness.
  TREE_ANSWER_CACHE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(32 * 1024 * 1024)
    .describe('bytes of serialized task-tree answers each process keeps (0: none)'),
});
export type TaskConfig = z.infer<typeof configSchema>;
