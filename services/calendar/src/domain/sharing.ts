import type { Sql } from '@routinely/db';
import { calendarEvents, enqueue, makeEvent } from '@routinely/events';
import { AppError, notFound } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import {
  type CalendarShareRow,
  deleteShare,
  findShareForUpdate,
  insertShareIfAbsent,
  listShares,
  updateSharePermission,
} from '../db/calendar-shares-sql.js';
import { type Actor, calendarForWrite, requireLevel, visibleCalendar } from './access.js';
import type { CalendarContext } from './context.js';
import type { DirectoryUser } from './user-directory.js';
import type { ShareLevel } from './values.js';
import { type SharingView, sharingView } from './views.js';

export interface ShareCreate {
  user_id?: string | undefined;
  email?: string | undefined;
  permission: ShareLevel;
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
    const access = await visibleCalendar(this.ctx.db, actor, calendarId, { activeOnly: true });
    requireLevel(access, 'admin', 'share this calendar');
    const user = await this.findUser(actor, input);
    if (user.id === access.calendar.owner_id) {
      throw new AppError('already_shared', 'The owner already holds every permission on this calendar');
    }
    const row = await this.ctx.db.transaction(async (sql) => {
      // Re-read inside the transaction: the caller's rights may have changed during the lookup.
      requireLevel(await calendarForWrite(sql, actor, calendarId, 'share'), 'admin', 'share this calendar');
      const now = this.ctx.clock.now();
      const share: CalendarShareRow = {
        id: uuidv7(),
        tenant_id: actor.tenantId,
        calendar_id: calendarId,
        user_id: user.id,
        email: user.email || null,
        permission: input.permission,
        granted_by: actor.userId,
        created_at: now,
        updated_at: now,
      };
      // Also what keeps two concurrent grants to the same user from both going through.
      if (!(await insertShareIfAbsent(sql, share))) {
        throw new AppError('already_shared', 'Calendar already shared with this user');
      }
      await enqueue(
        sql,
        makeEvent(calendarEvents.sharingGranted, { ...actor, at: now }, { sharing: sharingView(share) }),
      );
      return share;
    });
    this.ctx.relay.kick();
    return sharingView(row);
  }

  /** The owner and admins see every share; anyone else who can see the calendar sees only their own. */
  async list(actor: Actor, calendarId: string): Promise<SharingView[]> {
    const sql = this.ctx.db;
    const access = await visibleCalendar(sql, actor, calendarId, { activeOnly: true });
    const seesAll = access.level === 'owner' || access.level === 'admin';
    const rows = await listShares(sql, actor.tenantId, calendarId, seesAll ? null : actor.userId);
    return rows.map(sharingView);
  }

  async update(actor: Actor, calendarId: string, sharingId: string, permission: ShareLevel): Promise<SharingView> {
    let changed = false;
    const row = await this.ctx.db.transaction(async (sql) => {
      const share = await this.managedShare(sql, actor, calendarId, sharingId, 'change shares of this calendar');
      const previous = share.permission;
      if (previous === permission) return share;
      changed = true;
      const now = this.ctx.clock.now();
      const updated = await updateSharePermission(sql, actor.tenantId, sharingId, permission, now);
      await enqueue(
        sql,
        makeEvent(
          calendarEvents.sharingUpdated,
          { ...actor, at: now },
          { sharing: sharingView(updated), previous_permission: previous },
        ),
      );
      return updated;
    });
    if (changed) this.ctx.relay.kick();
    return sharingView(row);
  }

  async revoke(actor: Actor, calendarId: string, sharingId: string): Promise<void> {
    await this.ctx.db.transaction(async (sql) => {
      const share = await this.managedShare(sql, actor, calendarId, sharingId, 'revoke shares of this calendar');
      const now = this.ctx.clock.now();
      await enqueue(
        sql,
        makeEvent(calendarEvents.sharingRevoked, { ...actor, at: now }, { sharing: sharingView(share) }),
      );
      await deleteShare(sql, actor.tenantId, sharingId);
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

  /**
   * A share of a calendar the actor administers, both locked for the change that follows: the calendar's
   * 404/403 come before the share's 404.
   */
  private async managedShare(
    sql: Sql,
    actor: Actor,
    calendarId: string,
    sharingId: string,
    action: string,
  ): Promise<CalendarShareRow> {
    requireLevel(await calendarForWrite(sql, actor, calendarId, 'share'), 'admin', action);
    const share = await findShareForUpdate(sql, actor.tenantId, calendarId, sharingId);
    if (!share) throw notFound('Sharing entry');
    return share;
  }
}
