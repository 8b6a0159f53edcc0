import { nextRetryDelayMs } from './retry-policy.js';

export type FailedAttempt = {
  ok: false;
  retryable: boolean;
  statusCode: number | null;
  error: string;
  secretSealed: string | null;
};

/** What one try produced; `retryable: false` failures go straight to the dead-letter queue. */
export type AttemptResult = { ok: true; statusCode: number | null; secretSealed: string | null } | FailedAttempt;

/** A try that failed before anything was signed, so there is no secret to keep for the retries. */
export const unsent = (error: string, retryable = false, statusCode: number | null = null): FailedAttempt => ({
  ok: false,
  retryable,
  statusCode,
  error,
  secretSealed: null,
});

export type DeliveryStatus = 'sent' | 'failed' | 'dead';

/**
 * What becomes of a delivery after its `tries`-th try: sent; failed, tried again after `delayMs` (a retryable
 * failure within the retry budget); or dead (the dead-letter queue).
 */
export function tryOutcome(
  result: AttemptResult,
  tries: number,
  maxAttempts: number,
  retryWaitsMs: readonly number[],
): { status: DeliveryStatus; delayMs: number | null } {
  const delayMs = result.ok || !result.retryable ? null : nextRetryDelayMs(tries, maxAttempts, retryWaitsMs);
  return { status: result.ok ? 'sent' : delayMs !== null ? 'failed' : 'dead', delayMs };
}

/** Why a dead delivery is in the dead-letter queue. */
export function deadLetterReason(result: FailedAttempt): string {
  return result.retryable ? `retries exhausted: ${result.error}` : result.error;
}
