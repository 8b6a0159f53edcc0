import type { EntityManager } from '@routinely/db';
import { calendarEvents, enqueue, makeEvent } from '@routinely/events';
import { AppError, notFound } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import { readVisibleCalendar } from '../db/calendar-sql.js';
import { CalendarShare, type CalendarShareRow, type ShareLevel } from '../db/entities.js';
import { type Actor, loadVisibleCalendar, requireLevel } from './access.js';
import type { CalendarContext } from './context.js';
import type { DirectoryUser } from './user-directory.js';
import { sharingView } from './views.js';

export type SharingView = ReturnType<typeof sharingView>;

export interface ShareCreate {
  user_id?: string | undefined;
  email?: string | undefined;
  permission: ShareLevel;
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { name?: string; code?: string } | null;
  return e?.name === 'UniqueConstraintViolationException' || e?.code === '23505';
}

/**
 * Per-user sharing. Only the owner and admins manage shares; the owner is never a share, so nobody but
 * the owner can change what the owner holds. Requiring admin is also what keeps anyone from granting
 * more than they hold: no share level is above admin.
 */
export class SharingService {
  constructor(private readonly ctx: CalendarContext) {}

  async share(actor: Actor, calendarId: string, input: ShareCreate): Promise<SharingView> {
    // Checked before the lookup so a caller without rights learns nothing about the tenant's users.
    const access = await loadVisibleCalendar(this.ctx.orm.em.fork(), actor, calendarId);
    requireLevel(access, 'admin', 'share this calendar');
    const user = await this.findUser(actor, input);
    if (user.id === access.calendar.ownerId) {
      throw new AppError('already_shared', 'The owner already holds every permission on this calendar');
    }
    let row: CalendarShareRow;
    try {
      row = await this.ctx.orm.em.fork().transactional(async (em) => {
        // Re-read inside the transaction: the caller's rights may have changed during the lookup.
        const current = await loadVisibleCalendar(em, actor, calendarId);
        requireLevel(current, 'admin', 'share this calendar');
        const existing = await em.findOne(CalendarShare, { calendarId, tenantId: actor.tenantId, userId: user.id });
        if (existing) throw new AppError('already_shared', 'Calendar already shared with this user');
        const now = this.ctx.clock.now();
        const share = em.create(CalendarShare, {
          id: uuidv7(),
          tenantId: actor.tenantId,
          calendarId,
          userId: user.id,
          email: user.email || null,
          permission: input.permission,
          grantedBy: actor.userId,
          createdAt: now,
          updatedAt: now,
        });
        enqueue(em, makeEvent(calendarEvents.sharingGranted, { ...actor, at: now }, { sharing: sharingView(share) }));
        return share;
      });
    } catch (error) {
      // Two concurrent grants to the same user: the unique index lets one through.
      if (isUniqueViolation(error)) throw new AppError('already_shared', 'Calendar already shared with this user');
      throw error;
    }
    this.ctx.relay.kick();
    return sharingView(row);
  }

  /** The owner and admins see every share; anyone else who can see the calendar sees only their own. */
  async list(actor: Actor, calendarId: string): Promise<SharingView[]> {
    // A read: the one-query visibility check of the other reads, no managed calendar entity needed.
    const access = await readVisibleCalendar(this.ctx.orm, actor, calendarId, { activeOnly: true });
    const seesAll = access.level === 'owner' || access.level === 'admin';
    const rows = await this.ctx.orm.em
      .fork()
      .find(
        CalendarShare,
        { calendarId, tenantId: actor.tenantId, ...(seesAll ? {} : { userId: actor.userId }) },
        { orderBy: { createdAt: 'asc', id: 'asc' } },
      );
    return rows.map(sharingView);
  }

  async update(actor: Actor, calendarId: string, sharingId: string, permission: ShareLevel): Promise<SharingView> {
    let changed = false;
    const row = await this.ctx.orm.em.fork().transactional(async (em) => {
      const share = await this.loadManagedShare(em, actor, calendarId, sharingId, 'change shares of this calendar');
      const previous = share.permission as ShareLevel;
      if (previous !== permission) {
        changed = true;
        const now = this.ctx.clock.now();
        em.assign(share, { permission, updatedAt: now });
        enqueue(
          em,
          makeEvent(
            calendarEvents.sharingUpdated,
            { ...actor, at: now },
            { sharing: sharingView(share), previous_permission: previous },
          ),
        );
      }
      return share;
    });
    if (changed) this.ctx.relay.kick();
    return sharingView(row);
  }

  async revoke(actor: Actor, calendarId: string, sharingId: string): Promise<void> {
    await this.ctx.orm.em.fork().transactional(async (em) => {
      const share = await this.loadManagedShare(em, actor, calendarId, sharingId, 'revoke shares of this calendar');
      const now = this.ctx.clock.now();
      enqueue(em, makeEvent(calendarEvents.sharingRevoked, { ...actor, at: now }, { sharing: sharingView(share) }));
      em.remove(share);
    });
    this.ctx.relay.kick();
  }

  private async findUser(actor: Actor, input: ShareCreate): Promise<DirectoryUser> {
    const directory = this.ctx.userDirectory;
    const user = input.user_id
      ? await directory.findById(actor.tenantId, input.user_id, actor.userId)
      : await directory.findByEmail(actor.tenantId, (input.email ?? '').trim().toLowerCase(), actor.userId);
    if (!user?.isActive || user.tenantId !== actor.tenantId) throw notFound('User');
    return user;
  }

  /** A share of a calendar the actor administers: the calendar's 404/403 come before the share's 404. */
  private async loadManagedShare(
    em: EntityManager,
    actor: Actor,
    calendarId: string,
    sharingId: string,
    action: string,
  ): Promise<CalendarShareRow> {
    requireLevel(await loadVisibleCalendar(em, actor, calendarId), 'admin', action);
    const share = await em.findOne(CalendarShare, { id: sharingId, calendarId, tenantId: actor.tenantId });
    if (!share) throw notFound('Sharing entry');
    return share;
  }
}
