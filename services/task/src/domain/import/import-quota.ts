import type { Sql } from '@routinely/db';
import { AppError, type Clock, type Owner } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import {
  countImportUses,
  DAY_MS,
  findImportLimits,
  HOUR_MS,
  insertImportUse,
  upsertImportLimits,
} from '../../db/import-quota-sql.js';

export interface ImportLimits {
  perHour: number;
  perDay: number;
}

export interface ImportQuotaOfUser extends ImportLimits {
  userId: string;
  usedHour: number;
  usedDay: number;
  /** The administrator's last change; null while the user has the defaults. */
  updatedAt: Date | null;
}

/**
 * The per-user bulk-import quota (ADR 050, 056): limits an administrator sets through the scheduler's
 * `/admin/quotas` (else the configured defaults), counted over rolling windows of the clock. The task service
 * owns both, so an import is counted in its own transaction: a refused or failed import costs nothing.
 */
export class ImportQuota {
  constructor(
    private readonly clock: Clock,
    private readonly defaults: ImportLimits,
  ) {}

  /**
   * Counts one import of `owner` inside the import's transaction, or throws 429 with the seconds until the
   * window that refused frees a use. The caller holds the owner's lock, so two imports cannot both take the
   * last use.
   */
  async consume(sql: Sql, owner: Owner, kind: 'sync' | 'job'): Promise<void> {
    const now = this.clock.now();
    const [quota] = await this.quotasIn(sql, owner.tenantId, [owner.userId], now);
    if (!quota) throw new Error('a quota is reported for every asked user');
    const hourFull = quota.usedHour >= quota.perHour;
    if (hourFull || quota.usedDay >= quota.perDay) {
      const oldest = hourFull ? quota.oldestHour : quota.oldestDay;
      const windowMs = hourFull ? HOUR_MS : DAY_MS;
      const retryMs = oldest ? oldest.getTime() + windowMs - now.getTime() : windowMs;
      throw new AppError(
        'quota_exceeded',
        `Import quota exceeded: at most ${quota.perHour} imports per hour and ${quota.perDay} per day`,
        { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryMs / 1000))) } },
      );
    }
    await insertImportUse(sql, { id: uuidv7(), ...owner, kind, at: now });
  }

  /** Each user's limits and use; a user unknown here (or of another tenant) has the defaults and no use. */
  async quotas(sql: Sql, tenantId: string, userIds: readonly string[]): Promise<ImportQuotaOfUser[]> {
    const quotas = await this.quotasIn(sql, tenantId, userIds, this.clock.now());
    return quotas.map(({ oldestHour: _hour, oldestDay: _day, ...quota }) => quota);
  }

  async setLimits(sql: Sql, owner: Owner, limits: ImportLimits): Promise<ImportQuotaOfUser> {
    await upsertImportLimits(sql, { ...owner, ...limits, at: this.clock.now() });
    const [quota] = await this.quotas(sql, owner.tenantId, [owner.userId]);
    if (!quota) throw new Error('a quota is reported for every asked user');
    return quota;
  }

  private async quotasIn(sql: Sql, tenantId: string, userIds: readonly string[], now: Date) {
    const [limits, uses] = await Promise.all([
      findImportLimits(sql, tenantId, userIds),
      countImportUses(sql, tenantId, userIds, now),
    ]);
    const limitOf = new Map(limits.map((l) => [l.user_id, l]));
    const useOf = new Map(uses.map((u) => [u.user_id, u]));
    return userIds.map((userId) => {
      const limit = limitOf.get(userId);
      const use = useOf.get(userId);
      return {
        userId,
        perHour: limit?.per_hour ?? this.defaults.perHour,
        perDay: limit?.per_day ?? this.defaults.perDay,
        usedHour: use?.hour ?? 0,
        usedDay: use?.day ?? 0,
        updatedAt: limit?.updated_at ?? null,
        oldestHour: use?.oldest_hour ?? null,
        oldestDay: use?.oldest_day ?? null,
      };
    });
  }
}
