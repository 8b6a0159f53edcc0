import type { CalendarItemSnapshot, CalendarSharingSnapshot, CalendarSnapshot } from '@routinely/events';
import type {
  CalendarItemRow,
  CalendarRow,
  CalendarShareRow,
  ItemStatus,
  ItemType,
  ShareLevel,
  Visibility,
} from '../db/entities.js';
import type { AccessLevel } from './access.js';

/** Rows as the API and the events show them: snake_case, ISO datetimes with Z. */
export function calendarSnapshotOf(row: CalendarRow): CalendarSnapshot {
  return {
    id: row.id,
    tenant_id: row.tenantId,
    owner_id: row.ownerId,
    name: row.name,
    description: row.description ?? null,
    color: row.color ?? null,
    timezone: row.timezone,
    visibility: row.visibility as Visibility,
    is_active: row.isActive,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export type CalendarView = CalendarSnapshot & { permission: AccessLevel };

export function calendarView(row: CalendarRow, level: AccessLevel): CalendarView {
  return { ...calendarSnapshotOf(row), permission: level };
}

export function itemView(row: CalendarItemRow): CalendarItemSnapshot {
  return {
    id: row.id,
    calendar_id: row.calendarId,
    type: row.type as ItemType,
    title: row.title,
    description: row.description ?? null,
    location: row.location ?? null,
    start_at: row.startAt.toISOString(),
    end_at: row.endAt.toISOString(),
    all_day: row.allDay,
    status: row.status as ItemStatus,
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function sharingView(row: CalendarShareRow): CalendarSharingSnapshot {
  return {
    id: row.id,
    calendar_id: row.calendarId,
    user_id: row.userId,
    email: row.email ?? null,
    permission: row.permission as ShareLevel,
    granted_by: row.grantedBy,
    created_at: row.createdAt.toISOString(),
  };
}
