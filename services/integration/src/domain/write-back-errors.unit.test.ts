import { ManualClock } from '@routinely/platform';
import { describe, expect, it } from 'vitest';
import { ProviderBusy, ProviderError, ReauthRequired } from '../adapters/http.js';
import type { IntegrationRow } from '../db/entities.js';
import type { IntegrationContext } from './context.js';
import { classifyFailure, MAX_BACKOFF_MS } from './write-back-errors.js';

const clock = new ManualClock('2026-11-29T10:00:00.000Z');
const ctx = { clock, config: { INTEGRATION_WRITE_BACK_BACKOFF_MS: 1_000 } } as unknown as IntegrationContext;
const row = (throttles: number) => ({ writeBackThrottles: throttles }) as IntegrationRow;
const after = (ms: number) => new Date(clock.now().getTime() + ms);
const rateLimited = new ProviderError(403, { error: { errors: [{ reason: 'rateLimitExceeded' }] } }, 'event insert');

describe('write-back failures', () => {
  it("waits for the provider's Retry-After when it names one", () => {
    const busy = new ProviderBusy(after(30_000), true);
    expect(classifyFailure(ctx, row(5), busy)).toEqual({ kind: 'throttled', retryAt: after(30_000) });
  });

  it('backs off exponentially without one, up to 15 minutes', () => {
    expect(classifyFailure(ctx, row(0), rateLimited)).toEqual({ kind: 'throttled', retryAt: after(1_000) });
    expect(classifyFailure(ctx, row(3), new ProviderBusy(after(1_000), false))).toEqual({
      kind: 'throttled',
      retryAt: after(8_000),
    });
    expect(classifyFailure(ctx, row(30), rateLimited)).toEqual({ kind: 'throttled', retryAt: after(MAX_BACKOFF_MS) });
  });

  it('tells a lost grant and other failures apart', () => {
    expect(classifyFailure(ctx, row(0), new ReauthRequired())).toEqual({ kind: 'reauth' });
    expect(classifyFailure(ctx, row(0), new ProviderError(403, null, 'event insert'))).toEqual({
      kind: 'failed',
      code: 'write_failed',
    });
  });
});
