import { column, quoteIdentifier, type Row, row, type Sql } from '@routinely/db';
import type { ExternalEventSnapshot } from '@routinely/events';
import type { Owner } from '@routinely/platform';
import { z } from 'zod';
import type { TaskRow } from '../domain/task-model.js';
import { TASK_SCHEMA } from './config.js';
import { TASK_COLUMNS, taskRow } from './task-sql.js';

/**
 * The timezone copy, named with its schema: the settings consumer's statement once ran on a connection whose
 * search_path was another schema and dead-lettered every change (ADR 029).
 */
const USER_TIMEZONES = `${quoteIdentifier(TASK_SCHEMA)}.user_timezones`;

const EXTERNAL_COLUMNS = `id, tenant_id, user_id, integration_id, provider, external_id, title, start_at, end_at, all_day,
  status, busy, version, updated_at`;

/** Whether a statement of the consumer's transaction changed a row. */
async function changed(sql: Sql, query: string, params: unknown[]): Promise<boolean> {
  return (await sql.run(query, params)) > 0;
}

/**
 * Writes a provider event unless the stored copy is as new or newer (a late, older copy changes nothing,
 * a tombstone included), or its integration was revoked after this copy was written. Answers whether it wrote.
 */
export async function upsertExternalEvent(sql: Sql, owner: Owner, e: ExternalEventSnapshot): Promise<boolean> {
  return changed(
    sql,
    `insert into external_events (${EXTERNAL_COLUMNS}, deleted_at)
     select ?::uuid, ?::uuid, ?::uuid, ?::uuid, ?::text, ?::text, ?::text, ?::timestamptz, ?::timestamptz, ?::boolean,
       ?::text, ?::boolean, ?::bigint, ?::timestamptz, null::timestamptz
     where not exists (
       select 1 from revoked_integrations r where r.integration_id = ?::uuid and r.revoked_at >= ?::timestamptz
     )
     on conflict (id) do update set integration_id = excluded.integration_id, provider = excluded.provider,
       external_id = excluded.external_id, title = excluded.title, start_at = excluded.start_at,
       end_at = excluded.end_at, all_day = excluded.all_day, status = excluded.status, busy = excluded.busy,
       version = excluded.version, updated_at = excluded.updated_at, deleted_at = null
     where external_events.version < excluded.version
       and external_events.tenant_id = excluded.tenant_id and external_events.user_id = excluded.user_id`,
    [
      e.id,
      owner.tenantId,
      owner.userId,
      e.integration_id,
      e.provider,
      e.external_id,
      e.title,
      e.start,
      e.end,
      e.all_day,
      e.status,
      e.busy,
      e.version,
      e.updated_at,
      e.integration_id,
      e.updated_at,
    ],
  );
}

/** Leaves a tombstone at the deletion's version, so an older upsert arriving later cannot resurrect the event. */
export async function deleteExternalEvent(sql: Sql, owner: Owner, e: ExternalEventSnapshot): Promise<boolean> {
  return changed(
    sql,
    `insert into external_events (${EXTERNAL_COLUMNS}, deleted_at)
     values (?, ?, ?, ?, ?, ?, '', ?, ?, false, 'cancelled', false, ?, ?, ?)
     on conflict (id) do update set title = '', status = 'cancelled', busy = false, version = excluded.version,
       updated_at = excluded.updated_at, deleted_at = excluded.deleted_at
     where external_events.version <= excluded.version
       and external_events.tenant_id = excluded.tenant_id and external_events.user_id = excluded.user_id`,
    [
      e.id,
      owner.tenantId,
      owner.userId,
      e.integration_id,
      e.provider,
      e.external_id,
      e.start,
      e.end,
      e.version,
      e.updated_at,
      e.updated_at,
    ],
  );
}

/** Removes every event of the integration and remembers when, so copies written before that stay out. */
export async function dropIntegrationEvents(
  sql: Sql,
  owner: Owner,
  integrationId: string,
  revokedAt: string,
): Promise<void> {
  await sql.run('delete from external_events where integration_id = ? and tenant_id = ? and user_id = ?', [
    integrationId,
    owner.tenantId,
    owner.userId,
  ]);
  await sql.run(
    `insert into revoked_integrations (integration_id, tenant_id, user_id, revoked_at) values (?, ?, ?, ?)
     on conflict (integration_id) do update set revoked_at = greatest(revoked_integrations.revoked_at, excluded.revoked_at)`,
    [integrationId, owner.tenantId, owner.userId, revokedAt],
  );
}

/** Keeps the newest timezone the auth service reported (events can arrive out of order). */
export async function rememberTimezone(sql: Sql, owner: Owner, timezone: string, at: string): Promise<void> {
  await sql.run(
    `insert into ${USER_TIMEZONES} as stored (tenant_id, user_id, timezone, updated_at) values (?, ?, ?, ?)
     on conflict (tenant_id, user_id) do update set timezone = excluded.timezone, updated_at = excluded.updated_at
     where stored.updated_at <= excluded.updated_at`,
    [owner.tenantId, owner.userId, timezone, at],
  );
}

/**
 * Keeps the newest settings timezone the scheduler reported. A row that does not exist yet gets the zone as its
 * profile zone too, dated at the epoch so the first profile report replaces that part.
 */
export async function rememberSettingsTimezone(sql: Sql, owner: Owner, timezone: string, at: string) {
  await sql.run(
    `insert into ${USER_TIMEZONES} as stored
       (tenant_id, user_id, timezone, updated_at, settings_timezone, settings_updated_at)
     values (?, ?, ?, 'epoch', ?, ?)
     on conflict (tenant_id, user_id) do update
       set settings_timezone = excluded.settings_timezone, settings_updated_at = excluded.settings_updated_at
     where stored.settings_updated_at is null or stored.settings_updated_at <= excluded.settings_updated_at`,
    [owner.tenantId, owner.userId, timezone, timezone, at],
  );
}

/** The user's timezone: the settings one once set, else the profile's. */
export async function findTimezone(sql: Sql, owner: Owner): Promise<string | undefined> {
  const found = await sql.first(
    timezoneRow,
    `select coalesce(settings_timezone, timezone) as timezone from ${USER_TIMEZONES} where tenant_id = ? and user_id = ?`,
    [owner.tenantId, owner.userId],
  );
  return found?.timezone;
}

const timezoneRow = row({ timezone: column.text });

/** An external_events row (`EXTERNAL_COLUMNS`; live rows only: tombstones never leave the SQL layer). */
const externalEventRow = row({
  id: column.uuid,
  tenant_id: column.uuid,
  user_id: column.uuid,
  integration_id: column.uuid,
  provider: z.enum(['google', 'microsoft']),
  external_id: column.text,
  title: column.text,
  start_at: column.timestamp,
  end_at: column.timestamp,
  all_day: column.boolean,
  status: z.enum(['confirmed', 'tentative', 'cancelled']),
  busy: column.boolean,
  version: column.bigint,
  updated_at: column.timestamp,
});
export type ExternalEventRow = Row<typeof externalEventRow>;

export interface Window {
  from: Date;
  to: Date;
}

/**
 * The owner's live, not cancelled provider events overlapping the window, in calendar order (at most
 * `limit`). `busyOnly` keeps the ones that block time.
 */
export async function externalEventsIn(
  sql: Sql,
  owner: Owner,
  window: Window,
  options: { limit: number; busyOnly?: boolean },
): Promise<ExternalEventRow[]> {
  return sql.rows(
    externalEventRow,
    `select ${EXTERNAL_COLUMNS} from external_events
     where tenant_id = ? and user_id = ? and deleted_at is null and status <> 'cancelled'
       and start_at < ? and end_at > ?${options.busyOnly ? ' and busy' : ''}
     order by start_at, end_at, id limit ?`,
    [owner.tenantId, owner.userId, window.to, window.from, options.limit],
  );
}

export async function findExternalEvent(sql: Sql, owner: Owner, id: string): Promise<ExternalEventRow | undefined> {
  return sql.first(
    externalEventRow,
    `select ${EXTERNAL_COLUMNS} from external_events
     where id = ? and tenant_id = ? and user_id = ? and deleted_at is null and status <> 'cancelled'`,
    [id, owner.tenantId, owner.userId],
  );
}

/** The owner's tasks with a slot overlapping the window (cancelled ones are not on the calendar). */
export async function slottedTasksIn(
  sql: Sql,
  owner: Owner,
  window: Window,
  options: { limit: number; busyOnly?: boolean; excludeIds?: readonly string[] },
): Promise<TaskRow[]> {
  const status = options.busyOnly ? "status = 'scheduled'" : "status <> 'cancelled'";
  return sql.rows(
    taskRow,
    `select ${TASK_COLUMNS} from tasks
     where tenant_id = ? and user_id = ? and ${status} and chosen_slot_start is not null
       and chosen_slot_start < ? and chosen_slot_end > ? and not (id = any(?::uuid[]))
     order by chosen_slot_start, chosen_slot_end, id limit ?`,
    [owner.tenantId, owner.userId, window.to, window.from, options.excludeIds ?? [], options.limit],
  );
}
