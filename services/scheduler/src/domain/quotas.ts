import type { QuotaRow } from '../db/usage-sql.js';

/**
 * The quota of every user without an administrator's override: the contract's caps (soft 5, hard 20 USD) and
 * the configured import limits (default 5 an hour, 20 a day).
 */
export function defaultQuota(config: { IMPORT_QUOTA_PER_HOUR: number; IMPORT_QUOTA_PER_DAY: number }): QuotaRow {
  return {
    soft_cap_usd: 5,
    hard_cap_usd: 20,
    bulk_import_per_hour: config.IMPORT_QUOTA_PER_HOUR,
    bulk_import_per_day: config.IMPORT_QUOTA_PER_DAY,
    updated_at: null,
  };
}

export interface SpendFlags {
  soft_breached: boolean;
  hard_breached: boolean;
  /** A language-model run may start (`builtin` runs are never refused). */
  allowed: boolean;
}

/** A cap is breached once the day's spend reaches it. */
export function spendFlags(dailyUsd: number, quota: Pick<QuotaRow, 'soft_cap_usd' | 'hard_cap_usd'>): SpendFlags {
  const hard = dailyUsd >= quota.hard_cap_usd;
  return { soft_breached: dailyUsd >= quota.soft_cap_usd, hard_breached: hard, allowed: !hard };
}
