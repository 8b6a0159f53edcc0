import type { Sql } from '@routinely/db';
import { fieldError, notFound, type Owner } from '@routinely/platform';
import { localDateStringOf } from '@routinely/time';
import type { TaskImportQuotas } from '../adapters/task-import-quota.js';
import { findKnownUser, findSettingsTimezone } from '../db/settings-sql.js';
import {
  countTenantUsers,
  dailyCostsOf,
  findQuota,
  type QuotaRow,
  quotasOf,
  tenantUsers,
  upsertQuota,
} from '../db/usage-sql.js';
import { iso, usd } from './answer-values.js';
import type { SchedulerContext } from './context.js';
import { DEFAULT_QUOTA, spendFlags } from './quotas.js';

export interface QuotaPatch {
  soft_cap_usd?: number | undefined;
  hard_cap_usd?: number | undefined;
  bulk_import_per_hour?: number | undefined;
  bulk_import_per_day?: number | undefined;
}

interface ListedUser {
  user_id: string;
  email: string;
  timezone: string;
}

/**
 * The tenant administrator's view of every user's caps, today's spend and import limits (users known from
 * auth's events). The import limits are the task service's, which enforces them (ADR 050): read and set there.
 */
export class AdminQuotaService {
  constructor(
    private readonly ctx: SchedulerContext,
    private readonly importQuotas: Pick<TaskImportQuotas, 'ofUsers' | 'set'>,
  ) {}

  async list(admin: Owner, page: { limit: number; offset: number }) {
    const sql = this.ctx.db;
    const [users, total] = await Promise.all([
      tenantUsers(sql, admin.tenantId, page.limit, page.offset),
      countTenantUsers(sql, admin.tenantId),
    ]);
    const listed = users.map((u) => ({
      user_id: u.user_id,
      email: u.email,
      timezone: u.settings_timezone ?? u.timezone ?? 'UTC',
    }));
    return {
      items: await this.rows(sql, admin, listed),
      total: total?.total ?? 0,
      limit: page.limit,
      offset: page.offset,
    };
  }

  async get(admin: Owner, userId: string) {
    const sql = this.ctx.db;
    const [row] = await this.rows(sql, admin, [await this.userOfTenant(sql, admin, userId)]);
    if (!row) throw notFound('User');
    return row;
  }

  /**
   * Only given fields change; the result must keep soft <= hard (422 naming soft_cap_usd). New import limits
   * are set in the task service first: when it cannot answer, nothing changes (503) and the PATCH can be
   * repeated as it is.
   */
  async patch(admin: Owner, userId: string, patch: QuotaPatch) {
    const sql = this.ctx.db;
    const user = await this.userOfTenant(sql, admin, userId);
    const current = (await findQuota(sql, userId)) ?? DEFAULT_QUOTA;
    const soft = patch.soft_cap_usd ?? current.soft_cap_usd;
    const hard = patch.hard_cap_usd ?? current.hard_cap_usd;
    if (soft > hard) {
      throw fieldError(['body', 'soft_cap_usd'], `soft_cap_usd (${soft}) must not be above hard_cap_usd (${hard})`);
    }
    const { bulk_import_per_hour: perHour, bulk_import_per_day: perDay } = patch;
    if (perHour !== undefined || perDay !== undefined) {
      const imports = (await this.importQuotas.ofUsers(admin, [userId])).get(userId);
      if (!imports) throw notFound('User');
      await this.importQuotas.set(admin, userId, {
        perHour: perHour ?? imports.perHour,
        perDay: perDay ?? imports.perDay,
      });
    }
    if (patch.soft_cap_usd !== undefined || patch.hard_cap_usd !== undefined) {
      await upsertQuota(sql, { userId, tenantId: admin.tenantId, soft, hard, at: this.ctx.clock.now() });
    }
    const [row] = await this.rows(sql, admin, [user]);
    if (!row) throw notFound('User');
    return row;
  }

  /** A user of the admin's tenant as auth's events described them; anyone else is 404 (existence not leaked). */
  private async userOfTenant(sql: Sql, admin: Owner, userId: string): Promise<ListedUser> {
    const known = await findKnownUser(sql, userId);
    if (!known || known.tenant_id !== admin.tenantId) throw notFound('User');
    const settings = await findSettingsTimezone(sql, userId);
    return { user_id: userId, email: known.email, timezone: settings?.timezone ?? known.timezone ?? 'UTC' };
  }

  private async rows(sql: Sql, admin: Owner, users: readonly ListedUser[]) {
    if (users.length === 0) return [];
    const now = this.ctx.clock.now();
    const ids = users.map((u) => u.user_id);
    const dates = users.map((u) => safeLocalDate(now, u.timezone));
    const [quotas, costs, imports] = await Promise.all([
      quotasOf(sql, ids),
      dailyCostsOf(sql, ids, dates),
      this.importQuotas.ofUsers(admin, ids),
    ]);
    const quotaBy = new Map<string, QuotaRow>(quotas.map((q) => [q.user_id, q]));
    const costBy = new Map(costs.map((c) => [c.user_id, c.cost_usd]));
    return users.map((u) => {
      const quota = quotaBy.get(u.user_id) ?? DEFAULT_QUOTA;
      const limits = imports.get(u.user_id);
      if (!limits) throw new Error('the task service answered no import quota for a listed user');
      const dailyUsd = usd(costBy.get(u.user_id));
      const updatedAt = latest(quota.updated_at, limits.updatedAt);
      const flags = spendFlags(dailyUsd, quota);
      return {
        user_id: u.user_id,
        email: u.email,
        soft_cap_usd: usd(quota.soft_cap_usd),
        hard_cap_usd: usd(quota.hard_cap_usd),
        bulk_import_per_hour: limits.perHour,
        bulk_import_per_day: limits.perDay,
        daily_usd: dailyUsd,
        soft_breached: flags.soft_breached,
        hard_breached: flags.hard_breached,
        updated_at: updatedAt ? iso(updatedAt) : null,
      };
    });
  }
}

/** The later of an administrator's two changes (caps here, import limits in the task service). */
const latest = (a: Date | null, b: Date | null) => (a && b ? (a > b ? a : b) : (a ?? b));

/** A profile timezone auth sent may be one Intl does not know; the day then falls back to UTC. */
function safeLocalDate(at: Date, timezone: string): string {
  try {
    return localDateStringOf(at, timezone);
  } catch {
    return localDateStringOf(at, 'UTC');
  }
}
