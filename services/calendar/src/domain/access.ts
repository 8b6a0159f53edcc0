import type { EntityManager } from '@routinely/db';
import { AppError, notFound } from '@routinely/platform';
import { Calendar, type CalendarRow, CalendarShare, type ShareLevel } from '../db/entities.js';

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
  calendar: Pick<CalendarRow, 'ownerId' | 'visibility'>,
  userId: string,
  share: ShareLevel | null | undefined,
): AccessLevel | null {
  if (calendar.ownerId === userId) return 'owner';
  return share ?? (calendar.visibility === 'public' ? 'view' : null);
}

export interface CalendarAccess {
  calendar: CalendarRow;
  level: AccessLevel;
}

/**
 * Loads an active calendar the actor can see as a managed entity, for the writes; or 404 (another
 * tenant's, someone else's private calendar, a soft-deleted one and a missing id look the same).
 */
export async function loadVisibleCalendar(
  em: EntityManager,
  actor: Actor,
  calendarId: string,
): Promise<CalendarAccess> {
  const calendar = await em.findOne(Calendar, { id: calendarId, tenantId: actor.tenantId, isActive: true });
  if (!calendar) throw notFound('Calendar');
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
  if (!level) throw notFound('Calendar');
  return { calendar, level };
}

/** 403 for a caller who can see the calendar but lacks the level an action needs. */
export function requireLevel(access: CalendarAccess, needed: AccessLevel, action: string): void {
  if (RANK[access.level] < RANK[needed]) {
    const who = needed === 'owner' ? 'the owner' : `${needed} permission or better`;
    throw new AppError('forbidden', `Only ${who} may ${action}`);
  }
}
