import { column, type Row, row, type Sql } from '@routinely/db';
import { z } from 'zod';

const settingsRow = row({
  user_id: column.uuid,
  tenant_id: column.text,
  timezone: column.text,
  llm_provider_default: column.text,
  working_hours: column.json(z.record(z.string(), z.array(z.object({ start: z.string(), end: z.string() })))),
  reminder_offset_min: column.integer,
  buffer_min: column.integer,
  created_at: column.timestamp,
  updated_at: column.timestamp,
});
export type SettingsRow = Row<typeof settingsRow>;

const tenantSettingsRow = row({
  tenant_id: column.text,
  llm_provider_tenant_default: column.text,
  llm_provider_locked: column.boolean,
  updated_at: column.timestamp,
  updated_by: column.uuid.nullable(),
});

const knownUserRow = row({
  user_id: column.uuid,
  tenant_id: column.text,
  email: column.text,
  timezone: column.text.nullable(),
});

const windowRow = row({ body: column.json(z.record(z.string(), z.unknown())) });
const idRow = row({ id: column.uuid });

const SETTINGS = `user_id, tenant_id, timezone, llm_provider_default, working_hours, reminder_offset_min, buffer_min,
  created_at, updated_at`;

export const findSettings = (sql: Sql, tenantId: string, userId: string) =>
  sql.first(settingsRow, `select ${SETTINGS} from user_settings where tenant_id = ? and user_id = ?`, [
    tenantId,
    userId,
  ]);

/** Creates the row unless a racing request did; the caller reads it back either way. */
export async function insertSettingsIfMissing(sql: Sql, settings: SettingsRow): Promise<void> {
  await sql.run(
    `insert into user_settings (${SETTINGS}) values (?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?) on conflict (user_id) do nothing`,
    [
      settings.user_id,
      settings.tenant_id,
      settings.timezone,
      settings.llm_provider_default,
      JSON.stringify(settings.working_hours),
      settings.reminder_offset_min,
      settings.buffer_min,
      settings.created_at,
      settings.updated_at,
    ],
  );
}

export async function updateSettings(
  sql: Sql,
  tenantId: string,
  userId: string,
  changes: {
    timezone?: string;
    llmProviderDefault?: string;
    workingHours?: unknown;
    reminderOffsetMin?: number;
    bufferMin?: number;
  },
  now: Date,
): Promise<SettingsRow | undefined> {
  return sql.first(
    settingsRow,
    `update user_settings set
       timezone = coalesce(?, timezone),
       llm_provider_default = coalesce(?, llm_provider_default),
       working_hours = coalesce(?::jsonb, working_hours),
       reminder_offset_min = coalesce(?, reminder_offset_min),
       buffer_min = coalesce(?, buffer_min),
       updated_at = ?
     where tenant_id = ? and user_id = ? returning ${SETTINGS}`,
    [
      changes.timezone ?? null,
      changes.llmProviderDefault ?? null,
      changes.workingHours === undefined ? null : JSON.stringify(changes.workingHours),
      changes.reminderOffsetMin ?? null,
      changes.bufferMin ?? null,
      now,
      tenantId,
      userId,
    ],
  );
}

export const listWindows = (sql: Sql, tenantId: string, userId: string) =>
  sql.rows(windowRow, 'select body from no_go_windows where tenant_id = ? and user_id = ? order by created_at, id', [
    tenantId,
    userId,
  ]);

/** False when the id is taken (by anyone: ids are global). */
export async function insertWindow(
  sql: Sql,
  row: { id: string; tenantId: string; userId: string; body: unknown; at: Date },
): Promise<boolean> {
  const inserted = await sql.rows(
    idRow,
    `insert into no_go_windows (id, tenant_id, user_id, body, created_at) values (?, ?, ?, ?::jsonb, ?)
     on conflict (id) do nothing returning id`,
    [row.id, row.tenantId, row.userId, JSON.stringify(row.body), row.at],
  );
  return inserted.length === 1;
}

export async function deleteWindow(sql: Sql, tenantId: string, userId: string, id: string): Promise<boolean> {
  const deleted = await sql.rows(
    idRow,
    'delete from no_go_windows where id = ? and tenant_id = ? and user_id = ? returning id',
    [id, tenantId, userId],
  );
  return deleted.length === 1;
}

export const findTenantSettings = (sql: Sql, tenantId: string) =>
  sql.first(
    tenantSettingsRow,
    `select tenant_id, llm_provider_tenant_default, llm_provider_locked, updated_at, updated_by
     from tenant_settings where tenant_id = ?`,
    [tenantId],
  );

export async function upsertTenantSettings(
  sql: Sql,
  tenantId: string,
  changes: { tenantDefault?: string; locked?: boolean },
  by: string,
  now: Date,
) {
  return sql.first(
    tenantSettingsRow,
    `insert into tenant_settings as t (tenant_id, llm_provider_tenant_default, llm_provider_locked, updated_at, updated_by)
     values (?, coalesce(?, 'builtin'), coalesce(?, false), ?, ?)
     on conflict (tenant_id) do update set
       llm_provider_tenant_default = coalesce(?, t.llm_provider_tenant_default),
       llm_provider_locked = coalesce(?, t.llm_provider_locked),
       updated_at = excluded.updated_at, updated_by = excluded.updated_by
     returning tenant_id, llm_provider_tenant_default, llm_provider_locked, updated_at, updated_by`,
    [
      tenantId,
      changes.tenantDefault ?? null,
      changes.locked ?? null,
      now,
      by,
      changes.tenantDefault ?? null,
      changes.locked ?? null,
    ],
  );
}

export const findKnownUser = (sql: Sql, userId: string) =>
  sql.first(knownUserRow, 'select user_id, tenant_id, email, timezone from known_users where user_id = ?', [userId]);

/** A user as auth's events describe them; the newest event wins (the consumer writes it). */
export const upsertKnownUser = (
  sql: Sql,
  user: { id: string; tenant_id: string; email: string; timezone: string | null; is_active: boolean; at: Date },
) =>
  sql.run(
    `insert into known_users (user_id, tenant_id, email, timezone, is_active, updated_at) values (?, ?, ?, ?, ?, ?)
     on conflict (user_id) do update set tenant_id = excluded.tenant_id, email = excluded.email,
       timezone = excluded.timezone, is_active = excluded.is_active, updated_at = excluded.updated_at`,
    [user.id, user.tenant_id, user.email, user.timezone, user.is_active, user.at],
  );

/** The timezone of the user's settings row, if they have one. */
export const findSettingsTimezone = (sql: Sql, userId: string) =>
  sql.first(row({ timezone: column.text }), 'select timezone from user_settings where user_id = ?', [userId]);

/** Records that the task service applied our settings event `eventId`; drops acknowledgements older than an hour. */
export async function rememberSettingsAcknowledgement(sql: Sql, eventId: string, at: Date): Promise<void> {
  await sql.run('insert into settings_acknowledgements (event_id, at) values (?, ?) on conflict do nothing', [
    eventId,
    at,
  ]);
  await sql.run('delete from settings_acknowledgements where at < ?', [new Date(at.getTime() - 3_600_000)]);
}

export async function isSettingsChangeAcknowledged(sql: Sql, eventId: string): Promise<boolean> {
  return (
    (await sql.first(row({}), 'select 1 from settings_acknowledgements where event_id = ?', [eventId])) !== undefined
  );
}
