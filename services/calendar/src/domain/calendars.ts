import { calendarEvents, enqueue, makeEvent } from '@routinely/events';
import { AppError } from '@routinely/platform';
import { isValidTimeZone } from '@routinely/time';
import { v7 as uuidv7 } from 'uuid';
import { softDeleteItemsOfCalendar } from '../db/calendar-items-sql.js';
import {
  type CalendarChanges,
  type CalendarRow,
  insertCalendar,
  listCalendarsWithShare,
  softDeleteCalendar,
  updateCalendar,
} from '../db/calendars-sql.js';
import {
  type AccessLevel,
  type Actor,
  calendarForWrite,
  effectiveLevel,
  requireLevel,
  visibleCalendar,
} from './access.js';
import type { CalendarContext } from './context.js';
import type { Visibility } from './values.js';
import { type CalendarView, calendarSnapshotOf, calendarView } from './views.js';

export interface CalendarListQuery {
  page: number;
  page_size: number;
  include_shared: boolean;
  /** null lists active and deleted calendars alike. */
  is_active: boolean | null;
  sort_by: 'name' | 'created_at' | 'updated_at';
  sort_order: 'asc' | 'desc';
}

export interface CalendarPage {
  items: CalendarView[];
  total: number;
  page: number;
  page_size: number;
  pages: number;
}

export interface CalendarCreate {
  name: string;
  description?: string | null | undefined;
  color?: string | null | undefined;
  timezone?: string | undefined;
  visibility?: Visibility | undefined;
}

export type CalendarPatch = Partial<CalendarCreate>;

function requireTimeZone(timezone: string): void {
  if (!isValidTimeZone(timezone)) {
    throw new AppError('validation_failed', 'Unknown timezone', {
      errors: [{ loc: ['body', 'timezone'], msg: 'must be an IANA timezone', type: 'value_error' }],
    });
  }
}

/** Calendars: the caller owns what they create; shares and public visibility widen who can see. */
export class CalendarService {
  constructor(private readonly ctx: CalendarContext) {}

  /** Owned calendars, plus (include_shared) those shared with the caller and the tenant's public ones. */
  async list(actor: Actor, query: CalendarListQuery): Promise<CalendarPage> {
    const { rows, total } = await listCalendarsWithShare(this.ctx.db, actor.tenantId, actor.userId, {
      includeShared: query.include_shared,
      isActive: query.is_active,
      sortBy: query.sort_by,
      sortOrder: query.sort_order,
      limit: query.page_size,
      offset: (query.page - 1) * query.page_size,
    });
    const items = rows.map(({ share_permission, ...row }) =>
      // Every listed row is owned, shared or public, so it has a level.
      calendarView(row, effectiveLevel(row, actor.userId, share_permission) as AccessLevel),
    );
    return { items, total, page: query.page, page_size: query.page_size, pages: Math.ceil(total / query.page_size) };
  }

  async create(actor: Actor, input: CalendarCreate): Promise<CalendarView> {
    const timezone = input.timezone ?? 'UTC';
    requireTimeZone(timezone);
    const now = this.ctx.clock.now();
    const calendar: CalendarRow = {
      id: uuidv7(),
      tenant_id: actor.tenantId,
      owner_id: actor.userId,
      name: input.name,
      description: input.description ?? null,
      color: input.color?.toUpperCase() ?? null,
      timezone,
      visibility: input.visibility ?? 'private',
      is_active: true,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    await this.ctx.db.transaction(async (sql) => {
      await insertCalendar(sql, calendar);
      await enqueue(
        sql,
        makeEvent(calendarEvents.calendarCreated, { ...actor, at: now }, { calendar: calendarSnapshotOf(calendar) }),
      );
    });
    this.ctx.relay.kick();
    return calendarView(calendar, 'owner');
  }

  /** A soft-deleted calendar stays readable (read-only) to those who could see it, as the list shows it. */
  async get(actor: Actor, calendarId: string): Promise<CalendarView> {
    const access = await visibleCalendar(this.ctx.db, actor, calendarId, { activeOnly: false });
    return calendarView(access.calendar, access.level);
  }

  async update(actor: Actor, calendarId: string, patch: CalendarPatch): Promise<CalendarView> {
    if (patch.timezone !== undefined) requireTimeZone(patch.timezone);
    let changed = false;
    const result = await this.ctx.db.transaction(async (sql) => {
      const access = await calendarForWrite(sql, actor, calendarId, 'update');
      requireLevel(access, 'edit', 'change this calendar');
      const calendar = access.calendar;
      // Visibility decides who sees the calendar, so it is a sharing decision: admin or owner only.
      if (patch.visibility !== undefined && patch.visibility !== calendar.visibility) {
        requireLevel(access, 'admin', 'change the visibility of this calendar');
      }
      const next: CalendarChanges = {
        name: patch.name ?? calendar.name,
        description: patch.description !== undefined ? patch.description : calendar.description,
        color: patch.color !== undefined ? (patch.color?.toUpperCase() ?? null) : calendar.color,
        timezone: patch.timezone ?? calendar.timezone,
        visibility: patch.visibility ?? calendar.visibility,
      };
      changed = (Object.keys(next) as (keyof CalendarChanges)[]).some((k) => next[k] !== calendar[k]);
      if (!changed) return access;
      const now = this.ctx.clock.now();
      const updated = await updateCalendar(sql, actor.tenantId, calendarId, next, now);
      await enqueue(
        sql,
        makeEvent(calendarEvents.calendarUpdated, { ...actor, at: now }, { calendar: calendarSnapshotOf(updated) }),
      );
      return { ...access, calendar: updated };
    });
    if (changed) this.ctx.relay.kick();
    return calendarView(result.calendar, result.level);
  }

  /** Soft delete by the owner or an admin; the calendar's items go with it in the same transaction. */
  async remove(actor: Actor, calendarId: string): Promise<void> {
    await this.ctx.db.transaction(async (sql) => {
      const access = await calendarForWrite(sql, actor, calendarId, 'update');
      requireLevel(access, 'admin', 'delete this calendar');
      const now = this.ctx.clock.now();
      const deleted = await softDeleteCalendar(sql, actor.tenantId, calendarId, now);
      const itemsDeleted = await softDeleteItemsOfCalendar(sql, actor.tenantId, calendarId, now);
      await enqueue(
        sql,
        makeEvent(
          calendarEvents.calendarDeleted,
          { ...actor, at: now },
          { calendar: calendarSnapshotOf(deleted), items_deleted: itemsDeleted },
        ),
      );
    });
    this.ctx.relay.kick();
  }
}
