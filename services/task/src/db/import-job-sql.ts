import { column, type Row, row, type Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { z } from 'zod';

export const JOB_STATUSES = ['queued', 'parsing', 'parsed', 'committing', 'committed', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** A row the parse refused, as the job stores it (jsonb) and its routes answer it. */
export interface RowError {
  row: number;
  loc: (string | number)[];
  msg: string;
}

const rowError: z.ZodType<RowError> = z.object({
  row: z.number(),
  loc: z.array(z.union([z.string(), z.number()])),
  msg: z.string(),
});

/** An import job as its routes answer it (ADR 022); its rows are read only by the worker. */
const jobRow = row({
  id: column.uuid,
  tenant_id: column.uuid,
  user_id: column.uuid,
  status: z.enum(JOB_STATUSES),
  total: column.integer,
  valid: column.integer,
  invalid: column.integer,
  errors: column.json(z.array(rowError)),
  created_ids: column.json(z.array(z.string())),
  auto_schedule: column.boolean,
  schedule_run_id: column.uuid.nullable(),
  attempts: column.integer,
  lease_until: column.timestamp.nullable(),
  last_error: column.text.nullable(),
  created_at: column.timestamp,
  updated_at: column.timestamp,
});
export type JobRow = Row<typeof jobRow>;

/** A job the worker claimed: who it is for and what it does next. */
const claimedJobRow = row({
  id: column.uuid,
  tenant_id: column.uuid,
  user_id: column.uuid,
  status: z.enum(JOB_STATUSES),
  attempts: column.integer,
});
export type ClaimedJob = Row<typeof claimedJobRow>;

/** The stored rows of a job: the worker parses each one itself (plan.ts). */
const jobRowsRow = row({ rows: column.json(z.array(z.unknown())) });
const commitViewRow = row({
  status: z.enum(JOB_STATUSES),
  rows: column.json(z.array(z.unknown())),
  auto_schedule: column.boolean,
});

const JOB_COLUMNS = `id, tenant_id, user_id, status, total, valid, invalid, errors, created_ids, auto_schedule,
  schedule_run_id, attempts, lease_until, last_error, created_at, updated_at`;

/** The row counts and errors of a parse, written as one. */
export interface ParseOutcome {
  valid: number;
  invalid: number;
  errors: readonly RowError[];
}

export const insertJob = (sql: Sql, owner: Owner, job: { id: string; rows: readonly unknown[]; at: Date }) =>
  sql.first(
    jobRow,
    `insert into import_jobs (id, tenant_id, user_id, status, rows, total, valid, invalid, errors, created_ids,
       auto_schedule, schedule_run_id, attempts, lease_until, last_error, created_at, updated_at)
     values (?, ?, ?, 'queued', ?::jsonb, ?, 0, 0, '[]', '[]', false, null, 0, null, null, ?, ?)
     returning ${JOB_COLUMNS}`,
    [job.id, owner.tenantId, owner.userId, JSON.stringify(job.rows), job.rows.length, job.at, job.at],
  );

/** The owner's job; `forUpdate` locks it until the transaction ends. */
export const findJob = (sql: Sql, owner: Owner, id: string, options: { forUpdate?: boolean } = {}) =>
  sql.first(
    jobRow,
    `select ${JOB_COLUMNS} from import_jobs where id = ? and tenant_id = ? and user_id = ?${options.forUpdate ? ' for update' : ''}`,
    [id, owner.tenantId, owner.userId],
  );

export const markCommitting = (sql: Sql, id: string, autoSchedule: boolean, at: Date) =>
  sql.first(
    jobRow,
    `update import_jobs set status = 'committing', auto_schedule = ?, lease_until = null, updated_at = ?
     where id = ? returning ${JOB_COLUMNS}`,
    [autoSchedule, at, id],
  );

/** A cancelled job keeps its counts but drops its rows. */
export const markCancelled = (sql: Sql, id: string, at: Date) =>
  sql.run("update import_jobs set status = 'cancelled', lease_until = null, rows = '[]', updated_at = ? where id = ?", [
    at,
    id,
  ]);

/** The oldest job with work to do whose lease is free, locked so no other worker claims it meanwhile. */
export const lockNextClaimable = (sql: Sql, now: Date) =>
  sql.first(
    claimedJobRow,
    `select id, tenant_id, user_id, status, attempts from import_jobs
     where status in ('queued', 'parsing', 'committing') and (lease_until is null or lease_until < ?)
     order by id limit 1 for update skip locked`,
    [now],
  );

export const leaseJob = (sql: Sql, id: string, status: JobStatus, leaseUntil: Date, at: Date) =>
  sql.run('update import_jobs set status = ?, lease_until = ?, attempts = attempts + 1, updated_at = ? where id = ?', [
    status,
    leaseUntil,
    at,
    id,
  ]);

export const markFailed = (sql: Sql, id: string, reason: string, at: Date, outcome?: ParseOutcome) =>
  outcome
    ? sql.run(
        `update import_jobs set status = 'failed', valid = ?, invalid = ?, errors = ?::jsonb, lease_until = null,
           last_error = ?, updated_at = ? where id = ?`,
        [outcome.valid, outcome.invalid, JSON.stringify(outcome.errors), reason, at, id],
      )
    : sql.run(
        "update import_jobs set status = 'failed', lease_until = null, last_error = ?, updated_at = ? where id = ?",
        [reason, at, id],
      );

export async function jobRows(sql: Sql, id: string): Promise<unknown[]> {
  return (await sql.first(jobRowsRow, 'select rows from import_jobs where id = ?', [id]))?.rows ?? [];
}

/** Only a job still being parsed is updated: a cancellation in the meantime wins. */
export const markParsed = (sql: Sql, id: string, outcome: ParseOutcome, at: Date) =>
  sql.run(
    `update import_jobs set status = 'parsed', valid = ?, invalid = ?, errors = ?::jsonb, lease_until = null,
       updated_at = ? where id = ? and status = 'parsing'`,
    [outcome.valid, outcome.invalid, JSON.stringify(outcome.errors), at, id],
  );

/** The commit's view of a job, locked: its status, rows and whether it asks for a run. */
export const lockJobForCommit = (sql: Sql, id: string) =>
  sql.first(commitViewRow, 'select status, rows, auto_schedule from import_jobs where id = ? for update', [id]);

export const markCommitted = (sql: Sql, id: string, createdIds: readonly string[], runId: string | null, at: Date) =>
  sql.run(
    `update import_jobs set status = 'committed', created_ids = ?::jsonb, schedule_run_id = ?, lease_until = null,
       updated_at = ? where id = ?`,
    [JSON.stringify(createdIds), runId, at, id],
  );
