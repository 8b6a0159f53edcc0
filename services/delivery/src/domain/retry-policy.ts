/**
 * The spec's wait schedule. `max_attempts` counts retries after the first try: 4 (the default) uses the
 * first four waits; endpoints allowed up to 8 continue with 6 h, 12 h, 24 h, 24 h.
 */
export const RETRY_WAITS_MS = [
  5_000,
  30_000,
  5 * 60_000,
  60 * 60_000,
  6 * 60 * 60_000,
  12 * 60 * 60_000,
  24 * 60 * 60_000,
  24 * 60 * 60_000,
] as const;

export const DEFAULT_MAX_ATTEMPTS = 4;
export const MAX_MAX_ATTEMPTS = RETRY_WAITS_MS.length;

/**
 * Wait before the next try after `triesMade` tries failed retryably, or null when the retry budget is
 * spent (the delivery goes to the dead-letter queue). `waitsMs` is the deployment's schedule
 * (WEBHOOK_RETRY_WAITS_MS, the spec's by default).
 */
export function nextRetryDelayMs(
  triesMade: number,
  maxAttempts: number,
  waitsMs: readonly number[] = RETRY_WAITS_MS,
): number | null {
  const retriesUsed = triesMade - 1;
  if (retriesUsed >= Math.min(maxAttempts, MAX_MAX_ATTEMPTS)) return null;
  return waitsMs[retriesUsed] ?? null;
}

export type Outcome = 'sent' | 'retry' | 'dead' | 'redirect';

/** The spec's classification table for a receiver's HTTP status. */
export function classifyStatus(status: number): Outcome {
  if (status >= 200 && status < 300) return 'sent';
  if (status >= 300 && status < 400) return 'redirect';
  if (status === 429 || (status >= 500 && status < 600)) return 'retry';
  return 'dead';
}
