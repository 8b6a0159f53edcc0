import { column, type Row, row, type Sql } from '@routinely/db';
import type { TaskSnapshot } from '@routinely/events';
import type { Owner } from '@routinely/platform';

/** A claimed pending task with the integration that writes back for its owner. */
const claimedTaskRow = row({
  taskId: column.uuid,
  tenantId: column.text,
  userId: column.text,
  version: column.integer,
  slotStart: column.timestamp.nullable(),
  slotEnd: column.timestamp.nullable(),
  title: column.text,
  description: column.text.nullable(),
  deleted: column.boolean,
  changedAt: column.timestamp,
  integrationId: column.uuid.nullable(),
  calendarId: column.text.nullable(),
  externalId: column.text.nullable(),
  generation: column.integer,
  upstreamDeleted: column.boolean,
  writerId: column.uuid,
});
export type ClaimedTask = Row<typeof claimedTaskRow>;

const idRow = row({ id: column.uuid });
const countRow = row({ n: column.bigint });
const atRow = row({ at: column.timestamp.nullable() });

const TASK = `t.task_id as "taskId", t.tenant_id as "tenantId", t.user_id as "userId", t.version,
  t.slot_start as "slotStart", t.slot_end as "slotEnd", t.title, t.description, t.deleted, t.changed_at as "changedAt",
  t.integration_id as "integrationId", t.calendar_id as "calendarId", t.external_id as "externalId", t.generation,
  t.upstream_deleted as "upstreamDeleted"`;

/**
 * Records the newest state of a task from one of its events (coalescing: the last slot wins). An event whose
 * version is not newer than the one stored changes nothing, so a redelivered or late event never overwrites a
 * newer one; a deleted task stays deleted. A slot change lifts an upstream deletion (the event is written again).
 * `changed_at` keeps the oldest unwritten change, from which the lag is measured.
 */
export async function recordTaskChange(sql: Sql, task: TaskSnapshot, deleted: boolean, now: Date): Promise<void> {
  await sql.run(
    `insert into write_back_tasks as t (task_id, tenant_id, user_id, version, slot_start, slot_end, title, description,
       deleted, pending, changed_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, true, ?)
     on conflict (task_id) do update set
       version = excluded.version,
       upstream_deleted = t.upstream_deleted and excluded.slot_start is not distinct from t.slot_start
         and excluded.slot_end is not distinct from t.slot_end,
       slot_start = excluded.slot_start, slot_end = excluded.slot_end,
       title = excluded.title, description = excluded.description, deleted = excluded.deleted,
       pending = true,
       changed_at = case when t.pending then t.changed_at else excluded.changed_at end
     where t.version < excluded.version and not t.deleted`,
    [
      task.id,
      task.tenant_id,
      task.user_id,
      task.version,
      task.chosen_slot_start,
      task.chosen_slot_end,
      task.title,
      task.description,
      deleted,
      now,
    ],
  );
}

/**
 * Claims up to `limit` pending tasks whose owner has an active integration writing back into a calendar that
 * exists and is not backing off, oldest change first: SKIP LOCKED and a short claim keep replicas apart, and
 * a claim of a process that died lapses at `until`.
 */
export async function claimPendingTasks(sql: Sql, now: Date, until: Date, limit: number): Promise<ClaimedTask[]> {
  const rows = await sql.rows(
    claimedTaskRow,
    `with picked as (
       select t.task_id, i.id as writer_id from write_back_tasks t
       join integrations i on i.tenant_id = t.tenant_id and i.write_back_user = t.user_id
       where t.pending and (t.claimed_until is null or t.claimed_until <= ?)
         and i.status = 'active' and i.write_back_calendar_id is not null
         and (i.write_back_retry_at is null or i.write_back_retry_at <= ?)
       order by t.changed_at limit ? for update of t skip locked)
     update write_back_tasks t set claimed_until = ? from picked where t.task_id = picked.task_id
     returning ${TASK}, picked.writer_id as "writerId"`,
    [now, now, limit, until],
  );
  return rows.sort((a, b) => a.changedAt.getTime() - b.changedAt.getTime());
}

/** Where a task's event is now upstream (all null: none), and whether the user deleted it there. */
export interface WrittenState {
  integrationId: string | null;
  calendarId: string | null;
  externalId: string | null;
  generation: number;
  upstreamDeleted: boolean;
}

/**
 * A claimed task was written as it was at `claimed.version`: stays pending only when a newer change arrived
 * meanwhile. An upstream deletion holds only while the slot is still the one that was written.
 */
export async function completeTask(sql: Sql, claimed: ClaimedTask, state: WrittenState): Promise<void> {
  await sql.run(
    `update write_back_tasks set pending = (version <> ?), claimed_until = null,
       changed_at = case when version <> ? then changed_at else ? end,
       integration_id = ?, calendar_id = ?, external_id = ?, generation = ?,
       upstream_deleted = ? and slot_start is not distinct from ? and slot_end is not distinct from ?
     where task_id = ?`,
    [
      claimed.version,
      claimed.version,
      claimed.changedAt,
      state.integrationId,
      state.calendarId,
      state.externalId,
      state.generation,
      state.upstreamDeleted,
      claimed.slotStart,
      claimed.slotEnd,
      claimed.taskId,
    ],
  );
}

/** Gives claimed tasks back, to be tried again from `retryAt` (null: at once). */
export async function releaseTasks(sql: Sql, taskIds: readonly string[], retryAt: Date | null): Promise<void> {
  if (taskIds.length === 0) return;
  await sql.run('update write_back_tasks set claimed_until = ? where task_id = any(?::uuid[])', [retryAt, taskIds]);
}

/** Every task of the owner is to be written again (write-back turned on, or what it shows changed). */
export async function markOwnerTasksPending(sql: Sql, owner: Owner, now: Date): Promise<void> {
  await sql.run(
    `update write_back_tasks set pending = true, changed_at = case when pending then changed_at else ? end
     where tenant_id = ? and user_id = ? and not (deleted and external_id is null)`,
    [now, owner.tenantId, owner.userId],
  );
}

/** The calendar was deleted upstream: nothing of the integration is written any more. */
export async function forgetWrittenEvents(sql: Sql, integrationId: string): Promise<void> {
  await sql.run(
    `update write_back_tasks set integration_id = null, calendar_id = null, external_id = null, upstream_deleted = false
     where integration_id = ?`,
    [integrationId],
  );
}

/** Pending changes waiting for an integration that writes back (the gauge; others wait for write-back to be on). */
export async function countPendingWrites(sql: Sql): Promise<number> {
  const row = await sql.first(
    countRow,
    `select count(*) as n from write_back_tasks t
     join integrations i on i.tenant_id = t.tenant_id and i.write_back_user = t.user_id where t.pending`,
  );
  return row?.n ?? 0;
}

/**
 * Integrations whose dedicated calendar is to be made (writing back without one) or deleted (not writing back
 * but one is left), active and not backing off.
 */
export async function calendarWorkDue(sql: Sql, now: Date, limit: number): Promise<string[]> {
  const rows = await sql.rows(
    idRow,
    `select id from integrations
     where status = 'active' and (write_back_retry_at is null or write_back_retry_at <= ?)
       and ((write_back_user is not null and write_back_calendar_id is null)
         or (write_back_user is null and write_back_calendar_id is not null))
     order by updated_at limit ?`,
    [now, limit],
  );
  return rows.map((r) => r.id);
}

/** When the earliest backing-off writer may go on (the worker sleeps until then at most). */
export async function nextWriteBackRetry(sql: Sql, now: Date): Promise<Date | null> {
  const row = await sql.first(
    atRow,
    'select min(write_back_retry_at) as at from integrations where write_back_retry_at > ?',
    [now],
  );
  return row?.at ?? null;
}
