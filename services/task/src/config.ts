import { platformConfigSchema } from '@routinely/platform';
import { z } from 'zod';

/** The task service's environment; every variable has a default so the all-in-one host needs none. */
export const configSchema = platformConfigSchema.extend({
  /**
   * How long an import waits for the scheduler's ConsumeImportQuota. The import limits themselves live in the
   * scheduler (its IMPORT_QUOTA_PER_HOUR / IMPORT_QUOTA_PER_DAY and the administrator's overrides; ADR 050).
   */
  SCHEDULER_CALL_DEADLINE_MS: z.coerce.number().int().positive().default(3_000),
  /**
   * Deadline of each call the dashboard summary and the admin health page make to the scheduler, delivery and
   * integration services (and of the health page's database and Redis probes); a late owner's figures are null.
   */
  DASHBOARD_CALL_DEADLINE_MS: z.coerce.number().int().positive().default(2_000),
  /** Largest import job; the synchronous import is fixed at 100 rows by the spec. */
  IMPORT_JOB_MAX_ROWS: z.coerce.number().int().positive().default(10_000),
  /** How often the import worker looks for work, and how long a claimed job stays leased to one worker. */
  IMPORT_WORKER_POLL_MS: z.coerce.number().int().positive().default(500),
  IMPORT_JOB_LEASE_MS: z.coerce.number().int().positive().default(60_000),
  /** Attempts before a job that keeps crashing its worker is marked failed. */
  IMPORT_JOB_MAX_ATTEMPTS: z.coerce.number().int().positive().default(5),
  /**
   * Bytes of serialized task-tree answers each process keeps (0: none). Every read still asks PostgreSQL
   * whether the subtree changed (domain/tree-answers.ts), so the size trades memory for CPU, never freshness.
   */
  TREE_ANSWER_CACHE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(32 * 1024 * 1024),
});
export type TaskConfig = z.infer<typeof configSchema>;
