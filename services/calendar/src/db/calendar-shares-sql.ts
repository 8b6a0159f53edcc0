import type { Sql } from '@routinely/db';
import { notFound } from '@routinely/platform';
import type { ShareLevel } from '../domain/values.js';

/** A row of `calendar_shares`: one user's level on one calendar (unique per calendar and user). */
export interface CalendarShareRow {
  id: string;
  tenant_id: string;
  calendar_id: string;
  user_id: string;
  email: string | null;
  permission: ShareLevel;
  granted_by: string;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, tenant_id, calendar_id, user_id, email, permission, granted_by, created_at, updated_at';

/** The ORM's pg pool hands timestamptz over as text (MikroORM parses dates itself); rows here carry Dates. */
function parsed(raw: CalendarShareRow): CalendarShareRow {
  return { ...raw, created_at: new Date(raw.created_at), updated_at: new Date(raw.updated_at) };
}

/** The shares of a calendar, oldest first; `userId` narrows them to that user's own. */
export async function listShares(
  sql: Sql,
  tenantId: string,
  calendarId: string,
  userId: string | null,
): Promise<CalendarShareRow[]> {
  const rows = await sql.rows<CalendarShareRow>(
    `select ${COLUMNS} from calendar_shares where calendar_id = ? and tenant_id = ? ${userId ? 'and user_id = ?' : ''}
     order by created_at asc, id asc`,
    [calendarId, tenantId, ...(userId ? [userId] : [])],
  );
  return rows.map(parsed);
}

/** One share of a calendar, locked until the transaction ends (it is about to change or go). */
export async function findShareForUpdate(
  sql: Sql,
  tenantId: string,
  calendarId: string,
  shareId: string,
): Promise<CalendarShareRow | undefined> {
  const row = await sql.first<CalendarShareRow>(
    `select ${COLUMNS} from calendar_shares where id = ? and calendar_id = ? and tenant_id = ? for update`,
    [shareId, calendarId, tenantId],
  );
  return row && parsed(row);
}

/**
 * Inserts the share unless the user already holds one on the calendar; false then. The unique index decides,
 * so of two concurrent grants to one user exactly one is inserted.
 */
export async function insertShareIfAbsent(sql: Sql, row: CalendarShareRow): Promise<boolean> {
  const inserted = await sql.rows<{ id: string }>(
    `insert into calendar_shares (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (calendar_id, user_id) do nothing returning id`,
    [
      row.id,
      row.tenant_id,
      row.calendar_id,
      row.user_id,
      row.email,
      row.permission,
      row.granted_by,
      row.created_at,
      row.updated_at,
    ],
  );
  return inserted.length > 0;
}

export async function updateSharePermission(
  sql: Sql,
  tenantId: string,
  shareId: string,
  permission: ShareLevel,
  now: Date,
): Promise<CalendarShareRow> {
  const row = await sql.first<CalendarShareRow>(
    `update calendar_shares set permission = ?, updated_at = ? where tenant_id = ? and id = ? returning ${COLUMNS}`,
    [permission, now, tenantId, shareId],
  );
  // The caller holds the row locked in this transaction, so it is there.
  if (!row) throw notFound('Sharing entry');
  return parsed(row);
}

export async function deleteShare(sql: Sql, tenantId: string, shareId: string): Promise<void> {
  await sql.rows('delete from calendar_shares where tenant_id = ? and id = ?', [tenantId, shareId]);
}
