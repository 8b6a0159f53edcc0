import type { Sql } from '@routinely/db';
import { calendarEvents, enqueue, makeEvent } from '@routinely/events';
import { fieldError, notFound } from '@routinely/platform';
import { addDays, daysBetween, isStartOfLocalDate, startOfLocalDate } from '@routinely/time';
import { v7 as uuidv7 } from 'uuid';
import {
  type CalendarItemRow,
  findLiveItem,
  type ItemChanges,
  insertItem,
  readItemsOverlapping,
  updateItem,
} from '../db/calendar-items-sql.js';
import { type Actor, type CalendarAccess, calendarForWrite, requireLevel, visibleCalendar } from './access.js';
import type { CalendarContext } from './context.js';
import type { ItemStatus, ItemType } from './values.js';
import { type ItemView, itemView } from './views.js';

export interface ItemCreate {
  type: ItemType;
  title: string;
  description?: string | null | undefined;
  location?: string | null | undefined;
  start_at: Date;
  end_at: Date;
  all_day: boolean;
  status: Exclude<ItemStatus, 'cancelled'>;
}

export type ItemPatch = Partial<ItemCreate>;

export interface ItemWindowQuery {
  start_date: string;
  end_date: string;
  item_types?: ItemType[] | undefined;
  include_cancelled: boolean;
  status?: ItemStatus[] | undefined;
}

export interface ItemWindow {
  calendar_id: string;
  start_date: string;
  end_date: string;
  items: ItemView[];
  total: number;
}

/**
 * End after start; an all-day item starts and ends on date boundaries of the calendar's timezone (so a
 * one-day item in Europe/Berlin in winter is 23:00Z..23:00Z). `endField` names the field the caller
 * sent: a patch that moves only start_at past the end is blamed on start_at.
 */
function validateItemTimes(
  times: { start: Date; end: Date; allDay: boolean },
  timeZone: string,
  endField: 'start_at' | 'end_at' = 'end_at',
): void {
  if (times.end.getTime() <= times.start.getTime()) {
    throw fieldError(['body', endField], 'must be after start_at');
  }
  if (times.allDay) {
    if (!isStartOfLocalDate(times.start, timeZone)) {
      throw fieldError(['body', 'start_at'], `an all-day item must start at midnight in ${timeZone}`);
    }
    if (!isStartOfLocalDate(times.end, timeZone)) {
      throw fieldError(['body', endField], `an all-day item must end at midnight in ${timeZone}`);
    }
  }
}

/** Items of a calendar: viewers read them, edit or better changes them; cancelling keeps the row. */
export class ItemService {
  constructor(private readonly ctx: CalendarContext) {}

  /** Items overlapping [start_date 00:00, end_date + 1 day 00:00) in the calendar's timezone. */
  async window(actor: Actor, calendarId: string, query: ItemWindowQuery): Promise<ItemWindow> {
    const span = daysBetween(query.start_date, query.end_date);
    if (span < 0) throw fieldError(['query', 'end_date'], 'must not be before start_date');
    if (span + 1 > this.ctx.config.CALENDAR_MAX_WINDOW_DAYS) {
      throw fieldError(
        ['query', 'end_date'],
        `the window may span at most ${this.ctx.config.CALENDAR_MAX_WINDOW_DAYS} days`,
      );
    }
    const sql = this.ctx.db;
    const { calendar } = await visibleCalendar(sql, actor, calendarId, { activeOnly: true });
    const from = startOfLocalDate(query.start_date, calendar.timezone);
    const to = startOfLocalDate(addDays(query.end_date, 1), calendar.timezone);
    const statuses = query.status?.length
      ? query.status
      : query.include_cancelled
        ? undefined
        : (['confirmed', 'tentative'] as ItemStatus[]);
    const rows = await readItemsOverlapping(sql, {
      tenantId: actor.tenantId,
      calendarId,
      from,
      to,
      types: query.item_types,
      statuses,
    });
    const items = rows.map(itemView);
    return {
      calendar_id: calendarId,
      start_date: query.start_date,
      end_date: query.end_date,
      items,
      total: items.length,
    };
  }

  async create(actor: Actor, calendarId: string, input: ItemCreate): Promise<ItemView> {
    const row = await this.ctx.db.transaction(async (sql) => {
      const access = await calendarForWrite(sql, actor, calendarId, 'share');
      requireLevel(access, 'edit', 'add items to this calendar');
      validateItemTimes({ start: input.start_at, end: input.end_at, allDay: input.all_day }, access.calendar.timezone);
      const now = this.ctx.clock.now();
      const item: CalendarItemRow = {
        id: uuidv7(),
        tenant_id: actor.tenantId,
        calendar_id: calendarId,
        type: input.type,
        title: input.title,
        description: input.description ?? null,
        location: input.location ?? null,
        start_at: input.start_at,
        end_at: input.end_at,
        all_day: input.all_day,
        status: input.status,
        created_by: actor.userId,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      };
      await insertItem(sql, item);
      await enqueue(sql, makeEvent(calendarEvents.itemCreated, { ...actor, at: now }, { item: itemView(item) }));
      return item;
    });
    this.ctx.relay.kick();
    return itemView(row);
  }

  async update(actor: Actor, calendarId: string, itemId: string, patch: ItemPatch): Promise<ItemView> {
    let changed = false;
    const row = await this.ctx.db.transaction(async (sql) => {
      const { access, item } = await this.editableItem(sql, actor, calendarId, itemId, 'change items of this calendar');
      const next: ItemChanges = {
        type: patch.type ?? item.type,
        title: patch.title ?? item.title,
        description: patch.description !== undefined ? patch.description : item.description,
        location: patch.location !== undefined ? patch.location : item.location,
        start_at: patch.start_at ?? item.start_at,
        end_at: patch.end_at ?? item.end_at,
        all_day: patch.all_day ?? item.all_day,
        status: patch.status ?? item.status,
      };
      const timesTouched = patch.start_at !== undefined || patch.end_at !== undefined || patch.all_day !== undefined;
      if (timesTouched) {
        validateItemTimes(
          { start: next.start_at, end: next.end_at, allDay: next.all_day },
          access.calendar.timezone,
          patch.end_at !== undefined || patch.start_at === undefined ? 'end_at' : 'start_at',
        );
      }
      changed = (Object.keys(next) as (keyof ItemChanges)[]).some((k) => {
        const [before, after] = [item[k], next[k]];
        return after instanceof Date && before instanceof Date
          ? after.getTime() !== before.getTime()
          : after !== before;
      });
      if (!changed) return item;
      const now = this.ctx.clock.now();
      const updated = await updateItem(sql, actor.tenantId, itemId, next, now);
      await enqueue(sql, makeEvent(calendarEvents.itemUpdated, { ...actor, at: now }, { item: itemView(updated) }));
      return updated;
    });
    if (changed) this.ctx.relay.kick();
    return itemView(row);
  }

  /** Cancelling is idempotent: a cancelled item answers as it is and emits nothing new. */
  async cancel(actor: Actor, calendarId: string, itemId: string): Promise<ItemView> {
    let changed = false;
    const row = await this.ctx.db.transaction(async (sql) => {
      const { item } = await this.editableItem(sql, actor, calendarId, itemId, 'cancel items of this calendar');
      if (item.status === 'cancelled') return item;
      changed = true;
      const now = this.ctx.clock.now();
      const cancelled = await updateItem(sql, actor.tenantId, itemId, { ...item, status: 'cancelled' }, now);
      await enqueue(sql, makeEvent(calendarEvents.itemCancelled, { ...actor, at: now }, { item: itemView(cancelled) }));
      return cancelled;
    });
    if (changed) this.ctx.relay.kick();
    return itemView(row);
  }

  /**
   * A live item of a calendar the actor may edit, both locked for the change that follows: the calendar's
   * 404/403 come before the item's 404.
   */
  private async editableItem(
    sql: Sql,
    actor: Actor,
    calendarId: string,
    itemId: string,
    action: string,
  ): Promise<{ access: CalendarAccess; item: CalendarItemRow }> {
    const access = await calendarForWrite(sql, actor, calendarId, 'share');
    requireLevel(access, 'edit', action);
    const item = await findLiveItem(sql, actor.tenantId, calendarId, itemId, { forUpdate: true });
    if (!item) throw notFound('Item');
    return { access, item };
  }
}
