import type { Sql } from '@routinely/db';
import { enqueue, makeEvent, schedulerEvents } from '@routinely/events';
import type { Owner } from '@routinely/platform';
import { daysOfMonth, localDateStringOf, localMonthStringOf } from '@routinely/time';
import { v7 as uuidv7 } from 'uuid';
import type { TaskImportQuotas } from '../adapters/task-import-quota.js';
import {
  claimSoftNotice,
  findDaily,
  findQuota,
  incrementDaily,
  insertLedger,
  insertReservation,
  lockUser,
  monthDays,
  openReservations,
  providerBreakdown,
  releaseReservation,
} from '../db/usage-sql.js';
import { usd } from './answer-values.js';
import type { SchedulerContext } from './context.js';
import { countRefusal, countUsage } from './metrics.js';
import { DEFAULT_QUOTA, spendFlags } from './quotas.js';
import type { SettingsService } from './settings.js';

export interface UsageRecord {
  runId: string | null;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  reservationId: string | null;
}

/** The usage ledger, its per-day rollup in the user's timezone and the spend caps. */
export class UsageService {
  constructor(
    private readonly ctx: SchedulerContext,
    private readonly settings: SettingsService,
    private readonly importQuotas: Pick<TaskImportQuotas, 'own'>,
  ) {}

  private async quotaOf(sql: Sql, owner: Owner) {
    return (await findQuota(sql, owner.userId)) ?? DEFAULT_QUOTA;
  }

  /**
   * Appends one call to the ledger and adds it to the day's rollup in one transaction; the first recording
   * that brings the day to the soft cap also enqueues the day's one soft-breach event.
   */
  async record(owner: Owner, call: UsageRecord) {
    const timezone = await this.settings.timezoneOf(owner);
    const recorded = await this.ctx.db.transaction((sql) => this.recordIn(sql, owner, call, timezone));
    this.ctx.relay.kick();
    return recorded;
  }

  /**
   * `record` inside the caller's transaction (a run's batch writes its decisions and the call that chose them
   * together, so a batch retried after a failure never bills one answer twice). The caller kicks the relay.
   */
  async recordIn(sql: Sql, owner: Owner, call: UsageRecord, timezone: string) {
    const now = this.ctx.clock.now();
    const date = localDateStringOf(now, timezone);
    const costUsd = this.ctx.providers.costUsd(call.model, call);
    const id = uuidv7();
    await insertLedger(sql, { id, ...owner, ...call, costUsd, localDate: date, at: now });
    const day = await incrementDaily(sql, { ...owner, localDate: date, ...call, costUsd });
    await releaseReservation(sql, owner.userId, call.reservationId, now);
    const quota = await this.quotaOf(sql, owner);
    const dailyUsd = usd(day?.cost_usd);
    // The dashboard's copy of today's spend (the task service never asks the scheduler, ADR 056).
    const meta = { tenantId: owner.tenantId, userId: owner.userId, at: now };
    await enqueue(sql, makeEvent(schedulerEvents.usageDailyChanged, meta, { date, daily_usd: dailyUsd }));
    const flags = spendFlags(dailyUsd, quota);
    if (flags.soft_breached && !day?.soft_notified_at && (await claimSoftNotice(sql, owner.userId, date, now))) {
      await enqueue(
        sql,
        makeEvent(schedulerEvents.quotaSoftBreached, meta, {
          user_id: owner.userId,
          tenant_id: owner.tenantId,
          date,
          timezone,
          daily_usd: dailyUsd,
          soft_cap_usd: usd(quota.soft_cap_usd),
          hard_cap_usd: usd(quota.hard_cap_usd),
        }),
      );
    }
    countUsage(call, costUsd);
    return { usageId: id, costUsd, dailyUsd, ...flags };
  }

  /** Spend of the user's local today against their caps. */
  async status(owner: Owner) {
    const sql = this.ctx.db;
    const timezone = await this.settings.timezoneOf(owner);
    const date = localDateStringOf(this.ctx.clock.now(), timezone);
    const [day, quota] = await Promise.all([findDaily(sql, owner.userId, date), this.quotaOf(sql, owner)]);
    const dailyUsd = usd(day?.cost_usd);
    return { date, timezone, dailyUsd, quota, ...spendFlags(dailyUsd, quota), day };
  }

  async costStatus(owner: Owner) {
    const s = await this.status(owner);
    const breached = s.hard_breached ? 'hard' : s.soft_breached ? 'soft' : 'none';
    return {
      date: s.date,
      daily_usd: s.dailyUsd,
      soft: usd(s.quota.soft_cap_usd),
      hard: usd(s.quota.hard_cap_usd),
      allowed: s.allowed,
      breached: breached as 'none' | 'soft' | 'hard',
    };
  }

  async quotaMe(owner: Owner) {
    const [s, imports] = await Promise.all([this.status(owner), this.importQuotas.own(owner)]);
    return {
      soft_cap_usd: usd(s.quota.soft_cap_usd),
      hard_cap_usd: usd(s.quota.hard_cap_usd),
      daily_usd: s.dailyUsd,
      soft_breached: s.soft_breached,
      hard_breached: s.hard_breached,
      allowed: s.allowed,
      bulk_import: {
        per_hour: imports.perHour,
        per_day: imports.perDay,
        used_hour: imports.usedHour,
        used_day: imports.usedDay,
      },
    };
  }

  async today(owner: Owner) {
    const s = await this.status(owner);
    const providers = await providerBreakdown(this.ctx.db, owner.userId, s.date);
    return {
      date: s.date,
      timezone: s.timezone,
      total_usd: s.dailyUsd,
      calls: s.day?.calls ?? 0,
      input_tokens: s.day?.input_tokens ?? 0,
      output_tokens: s.day?.output_tokens ?? 0,
      providers: providers.map((p) => ({ ...p, cost_usd: usd(p.cost_usd) })),
    };
  }

  async monthly(owner: Owner, month: string | undefined) {
    const timezone = await this.settings.timezoneOf(owner);
    const wanted = month ?? localMonthStringOf(this.ctx.clock.now(), timezone);
    const days = daysOfMonth(wanted);
    const rows = await monthDays(this.ctx.db, owner.userId, days[0] ?? '', days.at(-1) ?? '');
    const byDate = new Map(rows.map((r) => [r.date, r]));
    const listed = days.map((date) => {
      const r = byDate.get(date);
      return {
        date,
        calls: r?.calls ?? 0,
        input_tokens: r?.input_tokens ?? 0,
        output_tokens: r?.output_tokens ?? 0,
        cost_usd: usd(r?.cost_usd),
      };
    });
    return { month: wanted, total_usd: usd(listed.reduce((sum, d) => sum + d.cost_usd, 0)), days: listed };
  }

  /**
   * Refuses a language-model call when today's spend plus open reservations plus the estimate would pass the
   * hard cap (`fits`, gRPC CheckAndReserveQuota), or only once spend plus reservations reached it (`until_reached`,
   * the run engine: the contract refuses at the cap, so one call's estimate may pass it, no more); otherwise
   * holds the estimate. Under the user's lock, so racing calls cannot both take the rest.
   */
  async checkAndReserve(owner: Owner, provider: string, estimatedUsd: number, rule: 'fits' | 'until_reached' = 'fits') {
    const timezone = await this.settings.timezoneOf(owner);
    const now = this.ctx.clock.now();
    const date = localDateStringOf(now, timezone);
    return this.ctx.db.transaction(async (sql) => {
      await lockUser(sql, owner.userId);
      const [day, quota, held] = await Promise.all([
        findDaily(sql, owner.userId, date),
        this.quotaOf(sql, owner),
        openReservations(sql, owner.userId, now),
      ]);
      const dailyUsd = usd(day?.cost_usd);
      const base = { dailyUsd, softCapUsd: usd(quota.soft_cap_usd), hardCapUsd: usd(quota.hard_cap_usd), date };
      if (provider === 'builtin') return { ...base, allowed: true, reservationId: '' };
      const committed = dailyUsd + (held?.total ?? 0);
      const passes = rule === 'fits' && committed + estimatedUsd > quota.hard_cap_usd;
      if (committed >= quota.hard_cap_usd || passes) {
        countRefusal('spend');
        return { ...base, allowed: false, reservationId: '' };
      }
      const reservationId = uuidv7();
      await insertReservation(sql, {
        id: reservationId,
        ...owner,
        amountUsd: estimatedUsd,
        expiresAt: new Date(now.getTime() + this.ctx.config.QUOTA_RESERVATION_TTL_MS),
      });
      return { ...base, allowed: true, reservationId };
    });
  }

  timezoneOf(owner: Owner): Promise<string> {
    return this.settings.timezoneOf(owner);
  }

  /** Gives a reservation back (a call that billed nothing: no answer came). */
  async release(owner: Owner, reservationId: string) {
    await releaseReservation(this.ctx.db, owner.userId, reservationId, this.ctx.clock.now());
  }
}
