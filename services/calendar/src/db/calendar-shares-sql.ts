import { column, type Row, row, type Sql } from '@routinely/db';
import { notFound } from '@routinely/platform';
import { z } from 'zod';
import { SHARE_LEVELS, type ShareLevel } from '../domain/values.js';

/** A row of `calendar_shares`: one user's level on one calendar (unique per calendar and user). */
const calendarShareRow = row({
  id: column.uuid,
  tenant_id: column.uuid,
  calendar_id: column.uuid,
  user_id: column.uuid,
  email: column.text.nullable(),
  permission: z.enum(SHARE_LEVELS),
  granted_by: column.uuid,
  created_at: column.timestamp,
  updated_at: column.timestamp,
});
export type CalendarShareRow = Row<typeof calendarShareRow>;

const COLUMNS = 'id, tenant_id, calendar_id, user_id, email, permission, granted_by, created_at, updated_at';

/** The shares of a calendar, oldest first; `userId` narrows them to that user's own. */
export async function listShares(
  sql: Sql,
  tenantId: string,
  calendarId: string,
  userId: string | null,
): Promise<CalendarShareRow[]> {
  return sql.rows(
    calendarShareRow,
    `select ${COLUMNS} from calendar_shares where calendar_id = ? and tenant_id = ? ${userId ? 'and user_id = ?' : ''}
     order by created_at asc, id asc`,
    [calendarId, tenantId, ...(userId ? [userId] : [])],
  );
}

/** One share of a calendar, locked until the transaction ends (it is about to change or go). */
export async function findShareForUpdate(
  sql: Sql,
  tenantId: string,
  calendarId: string,
  shareId: string,
): Promise<CalendarShareRow | undefined> {
  return sql.first(
    calendarShareRow,
    `select ${COLUMNS} from calendar_shares where id = ? and calendar_id = ? and tenant_id = ? for update`,
    [shareId, calendarId, tenantId],
  );
}

/**
 * Inserts the share unless the user already holds one on the calendar; false then. The unique index decides,
 * so of two concurrent grants to one user exactly one is inserted.
 */
export async function insertShareIfAbsent(sql: Sql, row: CalendarShareRow): Promise<boolean> {
  const inserted = await sql.run(
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
  return inserted > 0;
}

export async function updateSharePermission(
  sql: Sql,
  tenantId: string,
  shareId: string,
  permission: ShareLevel,
  now: Date,
): Promise<CalendarShareRow> {
  const row = await sql.first(
    calendarShareRow,
    `update calendar_shares set permission = ?, updated_at = ? where tenant_id = ? and id = ? returning ${COLUMNS}`,
    [permission, now, tenantId, shareId],
  );
  // The caller holds the row locked in this transaction, so it is there.
  if (!row) throw notFound('Sharing entry');
  return row;
}

export async function deleteShare(sql: Sql, tenantId: string, shareId: string): Promise<void> {
  await sql.run('delete from calendar_shares where tenant_id = ? and id = ?', [tenantId, shareId]);
}
