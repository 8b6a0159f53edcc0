import { calendarEvents, enqueue, makeEvent } from '@routinely/events';
import { AppError, isValidTimeZone } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import { type CalendarDbRow, calendarRowOf, calendarsWithShareOf, readVisibleCalendar } from '../db/calendar-sql.js';
import { Calendar, CalendarItem, type Visibility } from '../db/entities.js';
import { type AccessLevel, type Actor, effectiveLevel, loadVisibleCalendar, requireLevel } from './access.js';
import type { CalendarContext } from './context.js';
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
    const base = calendarsWithShareOf(this.ctx.orm, actor).where((q) => {
      q.where('c.owner_id', actor.userId);
      if (query.include_shared) q.orWhereNotNull('s.id').orWhere('c.visibility', 'public');
    });
    if (query.is_active !== null) base.where('c.is_active', query.is_active);
    const counted = (await base.clone().count({ count: '*' })) as { count: string | number }[];
    const total = Number(counted[0]?.count ?? 0);
    const column = query.sort_by === 'name' ? this.ctx.orm.em.getKnex().raw('lower(c.name)') : `c.${query.sort_by}`;
    const rows = (await base
      .clone()
      .select('c.*', 's.permission as share_permission')
      .orderBy([
        { column, order: query.sort_order },
        { column: 'c.id', order: query.sort_order },
      ])
      .limit(query.page_size)
      .offset((query.page - 1) * query.page_size)) as CalendarDbRow[];
    const items = rows.map((r) => {
      const row = calendarRowOf(r);
      return calendarView(row, effectiveLevel(row, actor.userId, r.share_permission) as AccessLevel);
    });
    return { items, total, page: query.page, page_size: query.page_size, pages: Math.ceil(total / query.page_size) };
  }

  async create(actor: Actor, input: CalendarCreate): Promise<CalendarView> {
    const timezone = input.timezone ?? 'UTC';
    requireTimeZone(timezone);
    const now = this.ctx.clock.now();
    const row = await this.ctx.orm.em.fork().transactional(async (em) => {
      const calendar = em.create(Calendar, {
        id: uuidv7(),
        tenantId: actor.tenantId,
        ownerId: actor.userId,
        name: input.name,
        description: input.description ?? null,
        color: input.color?.toUpperCase() ?? null,
        timezone,
        visibility: input.visibility ?? 'private',
        isActive: true,
        createdAt: now,
        updatedAt: now,
        deletedAt: null,
      });
      enqueue(
        em,
        makeEvent(calendarEvents.calendarCreated, { ...actor, at: now }, { calendar: calendarSnapshotOf(calendar) }),
      );
      return calendar;
    });
    this.ctx.relay.kick();
    return calendarView(row, 'owner');
  }

  /** A soft-deleted calendar stays readable (read-only) to those who could see it, as the list shows it. */
  async get(actor: Actor, calendarId: string): Promise<CalendarView> {
    const access = await readVisibleCalendar(this.ctx.orm, actor, calendarId, { activeOnly: false });
    return calendarView(access.calendar, access.level);
  }

  async update(actor: Actor, calendarId: string, patch: CalendarPatch): Promise<CalendarView> {
    if (patch.timezone !== undefined) requireTimeZone(patch.timezone);
    let changed = false;
    const result = await this.ctx.orm.em.fork().transactional(async (em) => {
      const access = await loadVisibleCalendar(em, actor, calendarId);
      requireLevel(access, 'edit', 'change this calendar');
      const calendar = access.calendar;
      // Visibility decides who sees the calendar, so it is a sharing decision: admin or owner only.
      if (patch.visibility !== undefined && patch.visibility !== calendar.visibility) {
        requireLevel(access, 'admin', 'change the visibility of this calendar');
      }
      const next = {
        name: patch.name ?? calendar.name,
        description: patch.description !== undefined ? patch.description : calendar.description,
        color: patch.color !== undefined ? (patch.color?.toUpperCase() ?? null) : calendar.color,
        timezone: patch.timezone ?? calendar.timezone,
        visibility: patch.visibility ?? calendar.visibility,
      };
      changed = (Object.keys(next) as (keyof typeof next)[]).some((k) => next[k] !== calendar[k]);
      if (changed) {
        const now = this.ctx.clock.now();
        em.assign(calendar, { ...next, updatedAt: now });
        enqueue(
          em,
          makeEvent(calendarEvents.calendarUpdated, { ...actor, at: now }, { calendar: calendarSnapshotOf(calendar) }),
        );
      }
      return access;
    });
    if (changed) this.ctx.relay.kick();
    return calendarView(result.calendar, result.level);
  }

  /** Soft delete by the owner or an admin; the calendar's items go with it in the same transaction. */
  async remove(actor: Actor, calendarId: string): Promise<void> {
    await this.ctx.orm.em.fork().transactional(async (em) => {
      const access = await loadVisibleCalendar(em, actor, calendarId);
      requireLevel(access, 'admin', 'delete this calendar');
      const now = this.ctx.clock.now();
      em.assign(access.calendar, { isActive: false, deletedAt: now, updatedAt: now });
      const itemsDeleted = await em.nativeUpdate(
        CalendarItem,
        { calendarId, tenantId: actor.tenantId, deletedAt: null },
        { deletedAt: now, updatedAt: now },
      );
      enqueue(
        em,
        makeEvent(
          calendarEvents.calendarDeleted,
          { ...actor, at: now },
          { calendar: calendarSnapshotOf(access.calendar), items_deleted: itemsDeleted },
        ),
      );
    });
    this.ctx.relay.kick();
  }
}
