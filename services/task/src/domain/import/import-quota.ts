import type { Owner } from '@routinely/platform';

export interface ImportQuotaAnswer {
  allowed: boolean;
  perHour: number;
  perDay: number;
  /** When refused: seconds until the window that refused frees a use. */
  retryAfterS: number;
}

/** Counts one bulk import against the user's limits, which the scheduler owns (ADR 050). */
export interface ImportQuota {
  consume(owner: Owner, kind: 'sync' | 'job'): Promise<ImportQuotaAnswer>;
}
