import { column, type Row, row, type Sql } from '@routinely/db';
import { notFound } from '@routinely/platform';
import { z } from 'zod';
import { ITEM_STATUSES, ITEM_TYPES, type ItemStatus, type ItemType } from '../domain/values.js';

/** A row of `calendar_items`; cancelling keeps the row (status cancelled), deleting the calendar soft-deletes it. */
const calendarItemRow = row({
  id: column.uuid,
  tenant_id: column.uuid,
  calendar_id: column.uuid,
  type: z.enum(ITEM_TYPES),
  title: column.text,
  description: column.text.nullable(),
  location: column.text.nullable(),
  start_at: column.timestamp,
  end_at: column.timestamp,
  all_day: column.boolean,
  status: z.enum(ITEM_STATUSES),
  created_by: column.uuid,
  created_at: column.timestamp,
  updated_at: column.timestamp,
  deleted_at: column.timestamp.nullable(),
});
export type CalendarItemRow = Row<typeof calendarItemRow>;

const COLUMNS = `id, tenant_id, calendar_id, type, title, description, location, start_at, end_at, all_day, status,
  created_by, created_at, updated_at, deleted_at`;

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
  return sql.rows(
    calendarItemRow,
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
  return sql.first(
    calendarItemRow,
    `select ${COLUMNS} from calendar_items
     where id = ? and calendar_id = ? and tenant_id = ? and deleted_at is null ${options.forUpdate ? 'for update' : ''}`,
    [itemId, calendarId, tenantId],
  );
}

export async function insertItem(sql: Sql, row: CalendarItemRow): Promise<void> {
  await sql.run(`insert into calendar_items (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
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
  const row = await sql.first(
    calendarItemRow,
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
  return row;
}

/** Soft-deletes the live items of a calendar (it is being deleted); answers how many there were. */
export async function softDeleteItemsOfCalendar(
  sql: Sql,
  tenantId: string,
  calendarId: string,
  now: Date,
): Promise<number> {
  return sql.run(
    `update calendar_items set deleted_at = ?, updated_at = ?
     where calendar_id = ? and tenant_id = ? and deleted_at is null returning id`,
    [now, now, calendarId, tenantId],
  );
}
