import type { Sql } from '@routinely/db';
import { AppError, notFound } from '@routinely/platform';
import { type CalendarLock, type CalendarRow, findCalendarWithShare } from '../db/calendars-sql.js';
import type { ShareLevel } from './values.js';

/** The caller's effective level on a calendar; `owner` is not a share and cannot be granted. */
export type AccessLevel = 'owner' | ShareLevel;

const RANK: Record<AccessLevel, number> = { view: 1, edit: 2, admin: 3, owner: 4 };

export interface Actor {
  tenantId: string;
  userId: string;
}

/**
 * The one place that decides how much a user may do with a calendar: ownership, then their share, then
 * public visibility (every user of the tenant may view). Null means the calendar is invisible to them.
 */
export function effectiveLevel(
  calendar: Pick<CalendarRow, 'owner_id' | 'visibility'>,
  userId: string,
  share: ShareLevel | null | undefined,
): AccessLevel | null {
  if (calendar.owner_id === userId) return 'owner';
  return share ?? (calendar.visibility === 'public' ? 'view' : null);
}

export interface CalendarAccess {
  calendar: CalendarRow;
  level: AccessLevel;
}

/**
 * The calendar with the caller's level, or 404: another tenant's, someone else's private calendar and a
 * missing id look the same (a soft-deleted one too, unless `activeOnly` is false: deleted calendars stay
 * readable).
 */
export async function visibleCalendar(
  sql: Sql,
  actor: Actor,
  calendarId: string,
  options: { activeOnly: boolean; lock?: CalendarLock },
): Promise<CalendarAccess> {
  const found = await findCalendarWithShare(sql, actor.tenantId, actor.userId, calendarId, options);
  if (found) {
    const { share_permission, ...calendar } = found;
    const level = effectiveLevel(calendar, actor.userId, share_permission);
    if (level) return { calendar, level };
  }
  throw notFound('Calendar');
}

/**
 * An active calendar the actor can see, locked until the write that follows commits; or 404. Writes to the
 * calendar itself take `update`; writes to its items and shares take `share`, which lets them run side by
 * side while keeping the calendar (and the caller's rights on it) from changing or going under them.
 */
export function calendarForWrite(
  sql: Sql,
  actor: Actor,
  calendarId: string,
  lock: CalendarLock,
): Promise<CalendarAccess> {
  return visibleCalendar(sql, actor, calendarId, { activeOnly: true, lock });
}

/** 403 for a caller who can see the calendar but lacks the level an action needs. */
export function requireLevel(access: CalendarAccess, needed: AccessLevel, action: string): void {
  if (RANK[access.level] < RANK[needed]) {
    const who = needed === 'owner' ? 'the owner' : `${needed} permission or better`;
    throw new AppError('forbidden', `Only ${who} may ${action}`);
  }
}
