import { column, type Row, row, type Sql } from '@routinely/db';
import { z } from 'zod';

/** A slot to apply once decided: start and end null clear the slot (the task could not be kept). */
const conflictAssignment = z.object({
  task_id: z.string(),
  start: z.string().nullable(),
  end: z.string().nullable(),
  decision_id: z.string().nullable(),
});
export type ConflictAssignment = z.output<typeof conflictAssignment>;

const checkRow = row({
  id: column.uuid,
  tenant_id: column.text,
  user_id: column.uuid,
  event_id: column.uuid,
  event_version: column.integer,
  title: column.text,
  event_start: column.timestamp,
  event_end: column.timestamp,
  status: z.enum(['pending', 'done', 'failed']),
  outcome: column.json(z.array(conflictAssignment)).nullable(),
  attempts: column.integer,
  lease_until: column.timestamp.nullable(),
  error: column.text.nullable(),
  created_at: column.timestamp,
});
export type ConflictCheckRow = Row<typeof checkRow>;

const CHECK = `id, tenant_id, user_id, event_id, event_version, title, event_start, event_end, status, outcome,
  attempts, lease_until, error, created_at`;

/** The consumer's one write: a redelivered or repeated (event, version) inserts nothing. */
export async function insertConflictCheck(
  sql: Sql,
  c: Pick<ConflictCheckRow, 'id' | 'tenant_id' | 'user_id' | 'event_id' | 'event_version' | 'title'> & {
    start: Date;
    end: Date;
    now: Date;
  },
): Promise<void> {
  await sql.run(
    `insert into schedule_conflict_checks (id, tenant_id, user_id, event_id, event_version, title, event_start,
       event_end, status, outcome, attempts, lease_until, error, created_at, completed_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, 'pending', null, 0, null, null, ?, null)
     on conflict (event_id, event_version) do nothing`,
    [c.id, c.tenant_id, c.user_id, c.event_id, c.event_version, c.title, c.start, c.end, c.now],
  );
}

/** One pending check nobody holds (or whose holder's lease ran out), locked for this worker. */
export const claimDueCheck = (sql: Sql, now: Date) =>
  sql.first(
    checkRow,
    `select ${CHECK} from schedule_conflict_checks
     where status = 'pending' and (lease_until is null or lease_until < ?)
     order by created_at, id limit 1 for update skip locked`,
    [now],
  );

export const leaseCheck = (sql: Sql, id: string, leaseUntil: Date) =>
  sql.run('update schedule_conflict_checks set lease_until = ?, attempts = attempts + 1 where id = ?', [
    leaseUntil,
    id,
  ]);

export const findCheck = (sql: Sql, id: string) =>
  sql.first(checkRow, `select ${CHECK} from schedule_conflict_checks where id = ?`, [id]);

/** The decided slots, in the transaction of the decisions and the outbox event. */
export const saveOutcome = (sql: Sql, id: string, outcome: readonly ConflictAssignment[]) =>
  sql.run('update schedule_conflict_checks set outcome = ?::jsonb where id = ?', [JSON.stringify(outcome), id]);

export const finishCheck = (sql: Sql, id: string, now: Date) =>
  sql.run(`update schedule_conflict_checks set status = 'done', lease_until = null, completed_at = ? where id = ?`, [
    now,
    id,
  ]);

export const failCheck = (sql: Sql, id: string, now: Date, error: string) =>
  sql.run(
    `update schedule_conflict_checks set status = 'failed', lease_until = null, completed_at = ?, error = ?
     where id = ?`,
    [now, error.slice(0, 2000), id],
  );

export const noteCheckError = (sql: Sql, id: string, error: string) =>
  sql.run('update schedule_conflict_checks set error = ? where id = ?', [error.slice(0, 2000), id]);

/** The newest decision of each task (what a conflict decision supersedes). */
export async function latestDecisionIds(
  sql: Sql,
  owner: { tenantId: string; userId: string },
  taskIds: readonly string[],
): Promise<Map<string, string>> {
  if (taskIds.length === 0) return new Map();
  const rows = await sql.rows(
    row({ task_id: column.uuid, id: column.uuid }),
    `select distinct on (task_id) task_id, id from schedule_decisions
     where tenant_id = ? and user_id = ? and task_id = any(?::uuid[]) and not dry_run
     order by task_id, created_at desc, id desc`,
    [owner.tenantId, owner.userId, taskIds],
  );
  return new Map(rows.map((r) => [r.task_id, r.id]));
}

/** The newest applied decision of each task (its source and slot): what the engine last put on the calendar. */
export async function latestAppliedDecisions(
  sql: Sql,
  owner: { tenantId: string; userId: string },
  taskIds: readonly string[],
): Promise<Map<string, { source: string; start: Date; end: Date }>> {
  if (taskIds.length === 0) return new Map();
  const rows = await sql.rows(
    row({
      task_id: column.uuid,
      source: column.text,
      chosen_slot_start: column.timestamp,
      chosen_slot_end: column.timestamp,
    }),
    `select distinct on (task_id) task_id, source, chosen_slot_start, chosen_slot_end from schedule_decisions
     where tenant_id = ? and user_id = ? and task_id = any(?::uuid[]) and not dry_run and applied
     order by task_id, created_at desc, id desc`,
    [owner.tenantId, owner.userId, taskIds],
  );
  return new Map(
    rows.map((r) => [r.task_id, { source: r.source, start: r.chosen_slot_start, end: r.chosen_slot_end }]),
  );
}
