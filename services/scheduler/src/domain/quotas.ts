import type { QuotaRow } from '../db/usage-sql.js';

/**
 * The spend caps of every user without an administrator's override: the contract's soft 5 and hard 20 USD.
 * (Import limits are the task service's, ADR 050.)
 */
export const DEFAULT_QUOTA: QuotaRow = { soft_cap_usd: 5, hard_cap_usd: 20, updated_at: null };

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
