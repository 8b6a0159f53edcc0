import { column, type Row, row, type Sql } from '@routinely/db';
import { notFound } from '@routinely/platform';
import { z } from 'zod';
import { SHARE_LEVELS, VISIBILITIES } from '../domain/values.js';

/** A row of `calendars`; a soft-deleted calendar keeps its row with is_active false and deleted_at set. */
const calendarRow = row({
  id: column.uuid,
  tenant_id: column.uuid,
  owner_id: column.uuid,
  name: column.text,
  description: column.text.nullable(),
  color: column.text.nullable(),
  timezone: column.text,
  visibility: z.enum(VISIBILITIES),
  is_active: column.boolean,
  created_at: column.timestamp,
  updated_at: column.timestamp,
  deleted_at: column.timestamp.nullable(),
});
export type CalendarRow = Row<typeof calendarRow>;

/** A calendar with the share the reading user holds on it (null where they hold none). */
const calendarWithShareRow = calendarRow.extend({ share_permission: z.enum(SHARE_LEVELS).nullable() });
export type CalendarWithShareRow = Row<typeof calendarWithShareRow>;

const countRow = row({ count: column.integer });

const COLUMNS = `id, tenant_id, owner_id, name, description, color, timezone, visibility, is_active, created_at,
  updated_at, deleted_at`;
const C_COLUMNS = COLUMNS.split(',')
  .map((column) => `c.${column.trim()}`)
  .join(', ');

/**
 * The tenant's calendars (`c`), each joined to the reading user's share (`s`). Binds the user id, then the
 * tenant id: every query below starts its parameters with those two.
 */
const WITH_SHARE = `from calendars c
  left join calendar_shares s on s.calendar_id = c.id and s.tenant_id = c.tenant_id and s.user_id = ?
  where c.tenant_id = ?`;

/** How a write holds the calendar row until its transaction ends (`for update` / `for share` of it). */
export type CalendarLock = 'update' | 'share';

/**
 * One calendar with the user's share in one round trip; `activeOnly` leaves out soft-deleted ones. `lock`
 * (inside a transaction) holds the calendar row: writes of the calendar apply one after the other, each on
 * what the previous one committed.
 */
export async function findCalendarWithShare(
  sql: Sql,
  tenantId: string,
  userId: string,
  calendarId: string,
  options: { activeOnly: boolean; lock?: CalendarLock | undefined },
): Promise<CalendarWithShareRow | undefined> {
  return sql.first(
    calendarWithShareRow,
    `select ${C_COLUMNS}, s.permission as share_permission ${WITH_SHARE} and c.id = ?
     ${options.activeOnly ? 'and c.is_active' : ''} ${options.lock === 'update' ? 'for update of c' : options.lock === 'share' ? 'for share of c' : ''}`,
    [userId, tenantId, calendarId],
  );
}

export interface CalendarListFilter {
  /** Besides owned calendars, those shared with the user and the tenant's public ones. */
  includeShared: boolean;
  /** null lists active and deleted calendars alike. */
  isActive: boolean | null;
  sortBy: 'name' | 'created_at' | 'updated_at';
  sortOrder: 'asc' | 'desc';
  limit: number;
  offset: number;
}

const SORT_COLUMNS: Record<CalendarListFilter['sortBy'], string> = {
  name: 'lower(c.name)',
  created_at: 'c.created_at',
  updated_at: 'c.updated_at',
};

/** One page of the calendars a user can see, with how many there are in all. */
export async function listCalendarsWithShare(
  sql: Sql,
  tenantId: string,
  userId: string,
  filter: CalendarListFilter,
): Promise<{ rows: CalendarWithShareRow[]; total: number }> {
  const visible = filter.includeShared
    ? `(c.owner_id = ? or s.id is not null or c.visibility = 'public')`
    : 'c.owner_id = ?';
  const where = `${WITH_SHARE} and ${visible} ${filter.isActive === null ? '' : 'and c.is_active = ?'}`;
  const params = [userId, tenantId, userId, ...(filter.isActive === null ? [] : [filter.isActive])];
  const counted = await sql.first(countRow, `select count(*)::int as count ${where}`, params);
  const order = filter.sortOrder === 'desc' ? 'desc' : 'asc';
  const rows = await sql.rows(
    calendarWithShareRow,
    `select ${C_COLUMNS}, s.permission as share_permission ${where}
     order by ${SORT_COLUMNS[filter.sortBy]} ${order}, c.id ${order} limit ? offset ?`,
    [...params, filter.limit, filter.offset],
  );
  return { rows, total: counted?.count ?? 0 };
}

export async function insertCalendar(sql: Sql, row: CalendarRow): Promise<void> {
  await sql.run(`insert into calendars (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
    row.id,
    row.tenant_id,
    row.owner_id,
    row.name,
    row.description,
    row.color,
    row.timezone,
    row.visibility,
    row.is_active,
    row.created_at,
    row.updated_at,
    row.deleted_at,
  ]);
}

export type CalendarChanges = Pick<CalendarRow, 'name' | 'description' | 'color' | 'timezone' | 'visibility'>;

export async function updateCalendar(
  sql: Sql,
  tenantId: string,
  calendarId: string,
  changes: CalendarChanges,
  now: Date,
): Promise<CalendarRow> {
  const row = await sql.first(
    calendarRow,
    `update calendars set name = ?, description = ?, color = ?, timezone = ?, visibility = ?, updated_at = ?
     where tenant_id = ? and id = ? returning ${COLUMNS}`,
    [changes.name, changes.description, changes.color, changes.timezone, changes.visibility, now, tenantId, calendarId],
  );
  // The caller holds the row locked in this transaction, so it is there.
  if (!row) throw notFound('Calendar');
  return row;
}

export async function softDeleteCalendar(
  sql: Sql,
  tenantId: string,
  calendarId: string,
  now: Date,
): Promise<CalendarRow> {
  const row = await sql.first(
    calendarRow,
    `update calendars set is_active = false, deleted_at = ?, updated_at = ?
     where tenant_id = ? and id = ? returning ${COLUMNS}`,
    [now, now, tenantId, calendarId],
  );
  // The caller holds the row locked in this transaction, so it is there.
  if (!row) throw notFound('Calendar');
  return row;
}
