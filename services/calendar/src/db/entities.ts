import { defineEntity, p } from '@routinely/db';

/**
 * The tables as MikroORM entities: they generate the migrations and back the drift check; the service reads and
 * writes them through the `*-sql.ts` modules beside this file, never through the ORM.
 */

const Calendar = defineEntity({
  name: 'Calendar',
  tableName: 'calendars',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    ownerId: p.uuid(),
    name: p.string().length(200),
    description: p.text().nullable(),
    color: p.string().length(7).nullable(),
    timezone: p.string().length(64),
    visibility: p.string().length(16),
    isActive: p.boolean(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    deletedAt: p.datetime().nullable(),
  },
  indexes: [
    { name: 'calendars_tenant_owner_idx', properties: ['tenantId', 'ownerId'] },
    // Public calendars are visible to the whole tenant, so the list reads them by tenant and visibility.
    { name: 'calendars_tenant_visibility_idx', properties: ['tenantId', 'visibility'] },
  ],
});

const CalendarItem = defineEntity({
  name: 'CalendarItem',
  tableName: 'calendar_items',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    calendarId: p.uuid(),
    type: p.string().length(16),
    title: p.string().length(500),
    description: p.text().nullable(),
    location: p.string().length(500).nullable(),
    startAt: p.datetime(),
    endAt: p.datetime(),
    allDay: p.boolean(),
    status: p.string().length(16),
    createdBy: p.uuid(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    deletedAt: p.datetime().nullable(),
  },
  indexes: [
    // The window query: items of one calendar whose start is before the window's end.
    { name: 'calendar_items_window_idx', properties: ['calendarId', 'startAt', 'endAt'] },
  ],
});

const CalendarShare = defineEntity({
  name: 'CalendarShare',
  tableName: 'calendar_shares',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid(),
    calendarId: p.uuid(),
    userId: p.uuid(),
    email: p.string().length(320).nullable(),
    permission: p.string().length(16),
    grantedBy: p.uuid(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  uniques: [{ name: 'calendar_shares_calendar_user_uniq', properties: ['calendarId', 'userId'] }],
  indexes: [{ name: 'calendar_shares_user_idx', properties: ['tenantId', 'userId'] }],
});

export const calendarEntities = [Calendar, CalendarItem, CalendarShare];
