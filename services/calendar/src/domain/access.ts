import type { EntityManager } from '@routinely/db';
import { AppError } from '@routinely/platform';
import { Calendar, type CalendarRow, CalendarShare, type ShareLevel } from '../db/entities.js';

/** The caller's effective level on a calendar; `owner` is not a share and cannot be granted. */
export type AccessLevel = 'owner' | ShareLevel;

const RANK: Record<AccessLevel, number> = { view: 1, edit: 2, admin: 3, owner: 4 };

export function rankOf(level: AccessLevel): number {
  return RANK[level];
}

export function atLeast(level: AccessLevel, needed: AccessLevel): boolean {
  return RANK[level] >= RANK[needed];
}

export interface Actor {
  tenantId: string;
  userId: string;
}

/**
 * The one place that decides how much a user may do with a calendar: ownership, then their share, then
 * public visibility (every user of the tenant may view). Null means the calendar is invisible to them.
 */
export function effectiveLevel(
  calendar: Pick<CalendarRow, 'ownerId' | 'visibility'>,
  userId: string,
  share: ShareLevel | null | undefined,
): AccessLevel | null {
  if (calendar.ownerId === userId) return 'owner';
  let level: AccessLevel | null = share ?? null;
  if (calendar.visibility === 'public' && level === null) level = 'view';
  return level;
}

export interface CalendarAccess {
  calendar: CalendarRow;
  level: AccessLevel;
}

/**
 * Loads a calendar the actor can see, or 404 (another tenant's, someone else's private calendar and a
 * missing id look the same). `activeOnly` also hides soft-deleted calendars, as every write does.
 */
export async function loadVisibleCalendar(
  em: EntityManager,
  actor: Actor,
  calendarId: string,
  options: { activeOnly: boolean } = { activeOnly: true },
): Promise<CalendarAccess> {
  const calendar = await em.findOne(Calendar, {
    id: calendarId,
    tenantId: actor.tenantId,
    ...(options.activeOnly ? { isActive: true } : {}),
  });
  if (!calendar) throw new AppError('not_found', 'Calendar not found');
  let share: ShareLevel | null = null;
  if (calendar.ownerId !== actor.userId) {
    const row = await em.findOne(CalendarShare, {
      calendarId: calendar.id,
      tenantId: actor.tenantId,
      userId: actor.userId,
    });
    share = (row?.permission as ShareLevel | undefined) ?? null;
  }
  const level = effectiveLevel(calendar, actor.userId, share);
  if (!level) throw new AppError('not_found', 'Calendar not found');
  return { calendar, level };
}

/** 403 for a caller who can see the calendar but lacks the level an action needs. */
export function requireLevel(access: CalendarAccess, needed: AccessLevel, action: string): void {
  if (!atLeast(access.level, needed)) {
    const who = needed === 'owner' ? 'the owner' : `${needed} permission or better`;
    throw new AppError('forbidden', `Only ${who} may ${action}`);
  }
}
