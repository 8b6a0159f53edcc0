import { type ColumnTypes, column, insertRows, type Row, row, type Sql } from '@routinely/db';
import type { UnscheduledReason } from '@routinely/scheduling';
import { z } from 'zod';

/** Every reason the solver answers (a record, so a reason added to the solver's type must be added here). */
const UNSCHEDULED_REASONS: Record<UnscheduledReason, true> = {
  not_schedulable: true,
  no_duration: true,
  no_slot_in_window: true,
  no_slot_before_deadline: true,
  blocked_by_dependency: true,
};

/** One task a run answered unscheduled (appended batch by batch). */
const unscheduledEntry = z.object({
  task_id: z.string(),
  reason: z.enum(Object.keys(UNSCHEDULED_REASONS) as [UnscheduledReason, ...UnscheduledReason[]]),
});

const runRow = row({
  id: column.uuid,
  tenant_id: column.text,
  user_id: column.uuid,
  status: z.enum(['queued', 'running', 'completed', 'failed']),
  /** `routine`: a placement a routine's fill requested (it may take in more requests while it waits). */
  kind: z.enum(['schedule', 'reflow', 'routine']),
  root_task_id: column.uuid.nullable(),
  provider: column.text,
  model: column.text,
  task_ids: column.json(z.array(z.string())),
  window_start: column.timestamp,
  window_end: column.timestamp,
  dry_run: column.boolean,
  unscheduled: column.json(z.array(unscheduledEntry)),
  /** Read as float8 (RUN), which the driver answers as a number. */
  cost_usd: column.integer,
  progress_total: column.integer,
  progress_done: column.integer,
  error: column.text.nullable(),
  attempts: column.integer,
  lease_until: column.timestamp.nullable(),
  created_by: column.uuid,
  created_at: column.timestamp,
  started_at: column.timestamp.nullable(),
  completed_at: column.timestamp.nullable(),
});
export type RunRow = Row<typeof runRow>;

const decisionRow = row({
  id: column.uuid,
  tenant_id: column.text,
  user_id: column.uuid,
  run_id: column.uuid.nullable(),
  task_id: column.uuid,
  chosen_slot_start: column.timestamp,
  chosen_slot_end: column.timestamp,
  rationale: column.text,
  provider: column.text,
  model: column.text,
  source: z.enum(['agent', 'solver', 'override']),
  supersedes_id: column.uuid.nullable(),
  dry_run: column.boolean,
  applied: column.boolean,
  warnings: column.json(z.array(z.string())),
  created_by: column.uuid,
  created_at: column.timestamp,
});
export type DecisionRow = Row<typeof decisionRow>;

const idRow = row({ id: column.uuid });

const RUN = `id, tenant_id, user_id, status, kind, root_task_id, provider, model, task_ids, window_start, window_end,
  dry_run, unscheduled, cost_usd::float8 as cost_usd, progress_total, progress_done, error, attempts, lease_until,
  created_by, created_at, started_at, completed_at`;

export type NewRun = Omit<RunRow, 'cost_usd' | 'unscheduled' | 'progress_done' | 'error' | 'completed_at'>;

/** Writes a run; `ifAbsent` leaves an existing run of that id as it is (a run requested by an event, redelivered). */
export const insertRun = (sql: Sql, r: NewRun, options: { ifAbsent?: boolean } = {}) =>
  sql.run(
    `insert into schedule_runs (id, tenant_id, user_id, status, kind, root_task_id, provider, model, task_ids,
       window_start, window_end, dry_run, unscheduled, cost_usd, progress_total, progress_done, error, attempts,
       lease_until, created_by, created_at, started_at, completed_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, '[]'::jsonb, 0, ?, 0, null, ?, ?, ?, ?, ?, null)
     ${options.ifAbsent ? 'on conflict (id) do nothing' : ''}`,
    [
      r.id,
      r.tenant_id,
      r.user_id,
      r.status,
      r.kind,
      r.root_task_id,
      r.provider,
      r.model,
      JSON.stringify(r.task_ids),
      r.window_start,
      r.window_end,
      r.dry_run,
      r.progress_total,
      r.attempts,
      r.lease_until,
      r.created_by,
      r.created_at,
      r.started_at,
    ],
  );

/**
 * Adds tasks to the owner's newest routine run that waits in the queue and was never taken, when it stays at most
 * `maxTasks`; its window reaches `windowEnd` at least. A run a worker is claiming right now is locked, so it is
 * skipped (the request then gets a run of its own). Answers whether a run took the tasks.
 */
export async function joinWaitingRoutineRun(
  sql: Sql,
  owner: { tenantId: string; userId: string },
  taskIds: readonly string[],
  windowEnd: Date,
  maxTasks: number,
): Promise<boolean> {
  const joined = await sql.rows(
    idRow,
    `with waiting as (
       select id, task_ids from schedule_runs
       where tenant_id = ? and user_id = ? and kind = 'routine' and status = 'queued' and attempts = 0
         and jsonb_array_length(task_ids) + ? <= ?
       order by created_at desc, id desc limit 1
       for update skip locked
     ), merged as (
       select id, task_ids || coalesce(
         (select jsonb_agg(t) from jsonb_array_elements(?::jsonb) as t where not waiting.task_ids @> jsonb_build_array(t)),
         '[]'::jsonb) as task_ids
       from waiting
     )
     update schedule_runs r set task_ids = merged.task_ids, progress_total = jsonb_array_length(merged.task_ids),
       window_end = greatest(r.window_end, ?)
     from merged where r.id = merged.id
     returning r.id`,
    [owner.tenantId, owner.userId, taskIds.length, maxTasks, JSON.stringify(taskIds), windowEnd],
  );
  return joined.length > 0;
}

/** The caller's run: another user's or tenant's is as missing as an unknown one. */
export const findOwnRun = (sql: Sql, owner: { tenantId: string; userId: string }, id: string) =>
  sql.first(runRow, `select ${RUN} from schedule_runs where id = ? and tenant_id = ? and user_id = ?`, [
    id,
    owner.tenantId,
    owner.userId,
  ]);

export const latestRun = (sql: Sql, owner: { tenantId: string; userId: string }) =>
  sql.first(
    runRow,
    `select ${RUN} from schedule_runs where tenant_id = ? and user_id = ? order by created_at desc, id desc limit 1`,
    [owner.tenantId, owner.userId],
  );

export const findRun = (sql: Sql, id: string) =>
  sql.first(runRow, `select ${RUN} from schedule_runs where id = ?`, [id]);

/** Owners whose next due run the worker looks at per claim, in turn order; the first not locked is taken. */
const CLAIM_CANDIDATES = 16;

/**
 * Takes one run that is queued, or running under an expired lease (its process died), for this worker, owners
 * in turn (ADR 055): the tenant served longest ago first, then within it the user served longest ago, then the
 * oldest run. A user whose run holds a live lease is skipped (one run of a user at a time: its batches take
 * turns on the placement lock anyway), so one owner's many runs never keep the workers from another's.
 * FOR UPDATE SKIP LOCKED so replicas never take the same run, and a lease so a dead one is taken again.
 *
 * The candidates are one run per owner (its oldest due), and the claim locks only the first of them it can: it
 * locked all sixteen before, so the worker's other lanes claiming at the same moment found every candidate locked,
 * took nothing and sat out the pass (1.4 lanes of four busy on average while 400 runs waited), or took another run
 * of the same user and waited for its placement lock.
 */
export async function claimDueRun(sql: Sql, now: Date): Promise<RunRow | undefined> {
  const candidates = await sql.rows(
    idRow,
    `with due as (
       select distinct on (tenant_id, user_id) id, tenant_id, user_id, created_at from schedule_runs
       where status in ('queued', 'running') and (lease_until is null or lease_until < ?)
       order by tenant_id, user_id, created_at, id),
     leased as (
       select distinct tenant_id, user_id from schedule_runs where status = 'running' and lease_until >= ?),
     tenants as (
       select tenant_id, max(served_at) as served_at from schedule_run_owners
       where tenant_id in (select tenant_id from due) group by tenant_id)
     select d.id from due d
       left join tenants t on t.tenant_id = d.tenant_id
       left join schedule_run_owners o on o.tenant_id = d.tenant_id and o.user_id = d.user_id
     where not exists (select 1 from leased l where l.tenant_id = d.tenant_id and l.user_id = d.user_id)
     order by t.served_at nulls first, o.served_at nulls first, d.created_at, d.id
     limit ${CLAIM_CANDIDATES}`,
    [now, now],
  );
  if (candidates.length === 0) return undefined;
  const ids = candidates.map((c) => c.id);
  const run = await sql.first(
    runRow,
    `select ${RUN} from schedule_runs where id = any(?::uuid[])
       and status in ('queued', 'running') and (lease_until is null or lease_until < ?)
     order by array_position(?::uuid[], id) limit 1
     for update skip locked`,
    [ids, now, ids],
  );
  if (!run) return undefined;
  await sql.run(
    `insert into schedule_run_owners (tenant_id, user_id, served_at) values (?, ?, clock_timestamp())
     on conflict (tenant_id, user_id) do update set served_at = excluded.served_at`,
    [run.tenant_id, run.user_id],
  );
  return run;
}

export const leaseRun = (sql: Sql, id: string, now: Date, leaseUntil: Date) =>
  sql.run(
    `update schedule_runs set status = 'running', lease_until = ?, attempts = attempts + 1,
       started_at = coalesce(started_at, ?) where id = ?`,
    [leaseUntil, now, id],
  );

/** One batch's outcome, in the transaction that wrote its decisions: progress and decisions never disagree. */
export const recordBatch = (
  sql: Sql,
  id: string,
  batch: { unscheduled: { task_id: string; reason: UnscheduledReason }[]; done: number; leaseUntil: Date },
) =>
  sql.run(
    `update schedule_runs set unscheduled = unscheduled || ?::jsonb, progress_done = progress_done + ?,
       lease_until = ?, cost_usd = (select coalesce(sum(cost_usd), 0) from usage_ledger where run_id = ?)
     where id = ?`,
    [JSON.stringify(batch.unscheduled), batch.done, batch.leaseUntil, id, id],
  );

export const finishRun = (sql: Sql, id: string, now: Date) =>
  sql.run(
    `update schedule_runs set status = 'completed', lease_until = null, completed_at = ?, error = null,
       cost_usd = (select coalesce(sum(cost_usd), 0) from usage_ledger where run_id = ?) where id = ?`,
    [now, id, id],
  );

export const failRun = (sql: Sql, id: string, now: Date, error: string) =>
  sql.run(`update schedule_runs set status = 'failed', lease_until = null, completed_at = ?, error = ? where id = ?`, [
    now,
    error,
    id,
  ]);

/** Each decision column's PostgreSQL type: a batch is written from one JSON parameter (`insertRows`). */
const DECISION_TYPE_OF = {
  id: 'uuid',
  tenant_id: 'text',
  user_id: 'uuid',
  run_id: 'uuid',
  task_id: 'uuid',
  chosen_slot_start: 'timestamptz',
  chosen_slot_end: 'timestamptz',
  rationale: 'text',
  provider: 'text',
  model: 'text',
  source: 'text',
  supersedes_id: 'uuid',
  dry_run: 'boolean',
  applied: 'boolean',
  warnings: 'jsonb',
  created_by: 'uuid',
  created_at: 'timestamptz',
} satisfies Record<keyof DecisionRow, string>;
const DECISION_TYPES: ColumnTypes = new Map(Object.entries(DECISION_TYPE_OF));
/** The decision columns, for reads (the same list the inserts write). */
const DECISION = Object.keys(DECISION_TYPE_OF).join(', ');

/**
 * Writes a batch's decisions in one statement (a builtin run decides up to 1,000 tasks at once). One JSON
 * parameter, not a VALUES list: binding 17 parameters per row took PostgreSQL 7 ms a routine run to plan.
 */
export const insertDecisions = (sql: Sql, rows: readonly DecisionRow[]) =>
  insertRows(sql, 'schedule_decisions', DECISION_TYPES, rows);

export const insertDecision = (sql: Sql, d: DecisionRow) => insertDecisions(sql, [d]);

export const decisionsOfRun = (sql: Sql, runId: string) =>
  sql.rows(decisionRow, `select ${DECISION} from schedule_decisions where run_id = ? order by created_at, id`, [runId]);

export const findOwnDecision = (sql: Sql, owner: { tenantId: string; userId: string }, id: string) =>
  sql.first(decisionRow, `select ${DECISION} from schedule_decisions where id = ? and tenant_id = ? and user_id = ?`, [
    id,
    owner.tenantId,
    owner.userId,
  ]);

/**
 * Decisions written but not yet held by the task service (a crash came between): the newest decision of each
 * task only, so a superseded slot is never applied over its override. The OFFSET 0 fence keeps the check a probe
 * of schedule_decisions_supersedes_idx per decision: as an anti-join the planner hashed every decision of every
 * run (94,000 after a routine fill of 1,000 users, 70 ms a call and growing).
 */
export const unappliedDecisions = (sql: Sql, runId: string) =>
  sql.rows(
    decisionRow,
    `select ${DECISION} from schedule_decisions d where run_id = ? and not dry_run and not applied
       and not exists (select 1 from schedule_decisions n where n.supersedes_id = d.id offset 0)
     order by created_at, id`,
    [runId],
  );

export const markApplied = (sql: Sql, ids: readonly string[]) =>
  sql.run('update schedule_decisions set applied = true where id = any(?::uuid[])', [ids]);

/** Why the last pass of a run failed (it is retried after its lease; shown in `error` if it is given up). */
export const noteRunError = (sql: Sql, id: string, error: string) =>
  sql.run('update schedule_runs set error = ? where id = ?', [error.slice(0, 2000), id]);
