import type { Sql } from '@routinely/db';
import { notFound } from '@routinely/platform';
import type { ItemStatus, ItemType } from '../domain/values.js';

/** A row of `calendar_items`; cancelling keeps the row (status cancelled), deleting the calendar soft-deletes it. */
export interface CalendarItemRow {
  id: string;
  tenant_id: string;
  calendar_id: string;
  type: ItemType;
  title: string;
  description: string | null;
  location: string | null;
  start_at: Date;
  end_at: Date;
  all_day: boolean;
  status: ItemStatus;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

const COLUMNS = `id, tenant_id, calendar_id, type, title, description, location, start_at, end_at, all_day, status,
  created_by, created_at, updated_at, deleted_at`;

/** The ORM's pg pool hands timestamptz over as text (MikroORM parses dates itself); rows here carry Dates. */
function parsed(raw: CalendarItemRow): CalendarItemRow {
  return {
    ...raw,
    start_at: new Date(raw.start_at),
    end_at: new Date(raw.end_at),
    created_at: new Date(raw.created_at),
    updated_at: new Date(raw.updated_at),
    deleted_at: raw.deleted_at === null ? null : new Date(raw.deleted_at),
  };
}

export interface ItemWindowFilter {
  tenantId: string;
  calendarId: string;
  from: Date;
  to: Date;
  /** Absent or empty: every type (status likewise). */
  types?: readonly ItemType[] | undefined;
  statuses?: readonly ItemStatus[] | undefined;
}

/**
 * Live items of a calendar overlapping [from, to): they start before the end and end after the start. The hot
 * read of the service (bench/calendar-bench.mjs): one statement on calendar_items_window_idx, rows as they are.
 */
export async function readItemsOverlapping(sql: Sql, filter: ItemWindowFilter): Promise<CalendarItemRow[]> {
  const types = filter.types?.length ? filter.types : null;
  const statuses = filter.statuses?.length ? filter.statuses : null;
  const rows = await sql.rows<CalendarItemRow>(
    `select ${COLUMNS} from calendar_items
     where calendar_id = ? and tenant_id = ? and deleted_at is null and start_at < ? and end_at > ?
       ${types ? 'and type = any(?::text[])' : ''} ${statuses ? 'and status = any(?::text[])' : ''}
     order by start_at asc, id asc`,
    [
      filter.calendarId,
      filter.tenantId,
      filter.to,
      filter.from,
      ...(types ? [[...types]] : []),
      ...(statuses ? [[...statuses]] : []),
    ],
  );
  return rows.map(parsed);
}

/**
 * A live item of a calendar; `forUpdate` locks it until the transaction ends, so two changes of one item apply
 * one after the other.
 */
export async function findLiveItem(
  sql: Sql,
  tenantId: string,
  calendarId: string,
  itemId: string,
  options: { forUpdate: boolean },
): Promise<CalendarItemRow | undefined> {
  const row = await sql.first<CalendarItemRow>(
    `select ${COLUMNS} from calendar_items
     where id = ? and calendar_id = ? and tenant_id = ? and deleted_at is null ${options.forUpdate ? 'for update' : ''}`,
    [itemId, calendarId, tenantId],
  );
  return row && parsed(row);
}

export async function insertItem(sql: Sql, row: CalendarItemRow): Promise<void> {
  await sql.rows(`insert into calendar_items (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
    row.id,
    row.tenant_id,
    row.calendar_id,
    row.type,
    row.title,
    row.description,
    row.location,
    row.start_at,
    row.end_at,
    row.all_day,
    row.status,
    row.created_by,
    row.created_at,
    row.updated_at,
    row.deleted_at,
  ]);
}

export type ItemChanges = Pick<
  CalendarItemRow,
  'type' | 'title' | 'description' | 'location' | 'start_at' | 'end_at' | 'all_day' | 'status'
>;

export async function updateItem(
  sql: Sql,
  tenantId: string,
  itemId: string,
  changes: ItemChanges,
  now: Date,
): Promise<CalendarItemRow> {
  const row = await sql.first<CalendarItemRow>(
    `update calendar_items set type = ?, title = ?, description = ?, location = ?, start_at = ?, end_at = ?,
       all_day = ?, status = ?, updated_at = ?
     where tenant_id = ? and id = ? returning ${COLUMNS}`,
    [
      changes.type,
      changes.title,
      changes.description,
      changes.location,
      changes.start_at,
      changes.end_at,
      changes.all_day,
      changes.status,
      now,
      tenantId,
      itemId,
    ],
  );
  // The caller holds the row locked in this transaction, so it is there.
  if (!row) throw notFound('Item');
  return parsed(row);
}

/** Soft-deletes the live items of a calendar (it is being deleted); answers how many there were. */
export async function softDeleteItemsOfCalendar(
  sql: Sql,
  tenantId: string,
  calendarId: string,
  now: Date,
): Promise<number> {
  const deleted = await sql.rows<{ id: string }>(
    `update calendar_items set deleted_at = ?, updated_at = ?
     where calendar_id = ? and tenant_id = ? and deleted_at is null returning id`,
    [now, now, calendarId, tenantId],
  );
  return deleted.length;
}
