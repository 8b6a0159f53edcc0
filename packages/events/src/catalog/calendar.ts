import { z } from 'zod';
import { defineEvent } from '../envelope.js';

export const calendarPermissionLevel = z.enum(['view', 'edit', 'admin']);

/** The calendar as followers need it (no caller-relative `permission`: events are not per reader). */
export const calendarSnapshot = z.object({
  id: z.string().uuid(),
  tenant_id: z.string(),
  owner_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  color: z.string().nullable(),
  timezone: z.string(),
  visibility: z.enum(['private', 'shared', 'public']),
  is_active: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type CalendarSnapshot = z.infer<typeof calendarSnapshot>;

export const calendarItemSnapshot = z.object({
  id: z.string().uuid(),
  calendar_id: z.string().uuid(),
  type: z.enum(['meeting', 'event', 'task']),
  title: z.string(),
  description: z.string().nullable(),
  location: z.string().nullable(),
  start_at: z.string(),
  end_at: z.string(),
  all_day: z.boolean(),
  status: z.enum(['confirmed', 'tentative', 'cancelled']),
  created_by: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type CalendarItemSnapshot = z.infer<typeof calendarItemSnapshot>;

export const calendarSharingSnapshot = z.object({
  id: z.string().uuid(),
  calendar_id: z.string().uuid(),
  user_id: z.string(),
  email: z.string().nullable(),
  permission: calendarPermissionLevel,
  granted_by: z.string(),
  created_at: z.string(),
});
export type CalendarSharingSnapshot = z.infer<typeof calendarSharingSnapshot>;

/**
 * Events of the calendar service (subjects calendar.<entity>.<verb>). Each carries the record as it is after
 * the change; a deleted calendar's event also says how many items the cascade soft-deleted.
 */
export const calendarEvents = {
  calendarCreated: defineEvent('calendar.calendar.created', z.object({ calendar: calendarSnapshot })),
  calendarUpdated: defineEvent('calendar.calendar.updated', z.object({ calendar: calendarSnapshot })),
  calendarDeleted: defineEvent(
    'calendar.calendar.deleted',
    z.object({ calendar: calendarSnapshot, items_deleted: z.number().int().nonnegative() }),
  ),
  itemCreated: defineEvent('calendar.item.created', z.object({ item: calendarItemSnapshot })),
  itemUpdated: defineEvent('calendar.item.updated', z.object({ item: calendarItemSnapshot })),
  itemCancelled: defineEvent('calendar.item.cancelled', z.object({ item: calendarItemSnapshot })),
  sharingGranted: defineEvent('calendar.sharing.granted', z.object({ sharing: calendarSharingSnapshot })),
  sharingUpdated: defineEvent(
    'calendar.sharing.updated',
    z.object({ sharing: calendarSharingSnapshot, previous_permission: calendarPermissionLevel }),
  ),
  sharingRevoked: defineEvent('calendar.sharing.revoked', z.object({ sharing: calendarSharingSnapshot })),
};
