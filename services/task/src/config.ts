import { platformConfigSchema } from '@routinely/platform';
import { z } from 'zod';

/** The task service's environment; every variable has a default so the all-in-one host needs none. */
export const configSchema = platformConfigSchema.extend({
  // The task service counts imports and keeps the administrators' overrides (set through the scheduler's
  // /admin/quotas, ADR 050).
  IMPORT_QUOTA_PER_HOUR: z.coerce
    .number()
    .int()
    .min(0)
    .max(10_000)
    .default(5)
    .describe("bulk imports per user per rolling hour, unless an administrator set the user's own"),
  IMPORT_QUOTA_PER_DAY: z.coerce
    .number()
    .int()
    .min(0)
    .max(10_000)
    .default(20)
    .describe("bulk imports per user per rolling day, unless an administrator set the user's own"),
  DASHBOARD_CALL_DEADLINE_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(2_000)
    .describe(
      "deadline of each dashboard-summary and admin-health call to delivery and integration (and of the health page's database and Redis probes); a late owner's figures are null",
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
