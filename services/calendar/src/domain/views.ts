import type { CalendarItemSnapshot, CalendarSharingSnapshot, CalendarSnapshot } from '@routinely/events';
import type { CalendarItemRow } from '../db/calendar-items-sql.js';
import type { CalendarShareRow } from '../db/calendar-shares-sql.js';
import type { CalendarRow } from '../db/calendars-sql.js';
import type { AccessLevel } from './access.js';

/** Rows as the API and the events show them: snake_case, ISO datetimes with Z. */
export function calendarSnapshotOf(row: CalendarRow): CalendarSnapshot {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    owner_id: row.owner_id,
    name: row.name,
    description: row.description,
    color: row.color,
    timezone: row.timezone,
    visibility: row.visibility,
    is_active: row.is_active,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export type CalendarView = CalendarSnapshot & { permission: AccessLevel };

export function calendarView(row: CalendarRow, level: AccessLevel): CalendarView {
  return { ...calendarSnapshotOf(row), permission: level };
}

export type ItemView = CalendarItemSnapshot;

export function itemView(row: CalendarItemRow): ItemView {
  return {
    id: row.id,
    calendar_id: row.calendar_id,
    type: row.type,
    title: row.title,
    description: row.description,
    location: row.location,
    start_at: row.start_at.toISOString(),
    end_at: row.end_at.toISOString(),
    all_day: row.all_day,
    status: row.status,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export type SharingView = CalendarSharingSnapshot;

export function sharingView(row: CalendarShareRow): SharingView {
  return {
    id: row.id,
    calendar_id: row.calendar_id,
    user_id: row.user_id,
    email: row.email,
    permission: row.permission,
    granted_by: row.granted_by,
    created_at: row.created_at.toISOString(),
  };
}
