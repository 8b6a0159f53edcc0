import { isRateLimited } from '../adapters/calendar-writer.js';
import { ProviderBusy, ReauthRequired } from '../adapters/http.js';
import type { IntegrationRow } from '../db/entities.js';
import type { IntegrationContext } from './context.js';

/** The longest backoff when the provider names no Retry-After (contract: exponential up to 15 minutes). */
export const MAX_BACKOFF_MS = 15 * 60_000;

/** How a failed write-back call is handled: stop for the user, back off, or retry this one later. */
export type WriteFailure =
  | { kind: 'reauth' }
  | { kind: 'throttled'; retryAt: Date }
  | { kind: 'failed'; code: 'write_failed' };

/**
 * Classifies a provider failure. A rate limit waits for the provider's Retry-After when it named one, else
 * `base * 2^n` for the n-th rate limit in a row, capped at 15 minutes.
 */
export function classifyFailure(ctx: IntegrationContext, row: IntegrationRow, error: unknown): WriteFailure {
  if (error instanceof ReauthRequired) return { kind: 'reauth' };
  if (isRateLimited(error)) {
    const now = ctx.clock.now().getTime();
    if (error instanceof ProviderBusy && error.stated) return { kind: 'throttled', retryAt: error.retryAt };
    const backoff = Math.min(
      MAX_BACKOFF_MS,
      ctx.config.INTEGRATION_WRITE_BACK_BACKOFF_MS * 2 ** row.writeBackThrottles,
    );
    return { kind: 'throttled', retryAt: new Date(now + backoff) };
  }
  return { kind: 'failed', code: 'write_failed' };
}
