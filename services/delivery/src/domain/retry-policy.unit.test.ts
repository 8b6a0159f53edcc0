import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyStatus, nextRetryDelayMs, RETRY_WAITS_MS } from './retry-policy.js';

const s = 1000;
const m = 60 * s;
const h = 60 * m;

function waits(maxAttempts: number): number[] {
  const out: number[] = [];
  for (let tries = 1; ; tries++) {
    const wait = nextRetryDelayMs(tries, maxAttempts);
    if (wait === null) return out;
    out.push(wait);
  }
}

describe('retry schedule', () => {
  it('follows the spec for max_attempts 0, 4 (default) and 8', () => {
    expect(waits(0)).toEqual([]);
    expect(waits(4)).toEqual([5 * s, 30 * s, 5 * m, 1 * h]);
    expect(waits(8)).toEqual([5 * s, 30 * s, 5 * m, 1 * h, 6 * h, 12 * h, 24 * h, 24 * h]);
  });

  it('always gives exactly max_attempts retries, each a prefix of the same schedule', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 8 }), (max) => {
        expect(waits(max)).toEqual(RETRY_WAITS_MS.slice(0, max));
      }),
    );
  });
});

describe('classification table', () => {
  it.each([
    [200, 'sent'],
    [201, 'sent'],
    [204, 'sent'],
    [299, 'sent'],
    [301, 'redirect'],
    [302, 'redirect'],
    [307, 'redirect'],
    [308, 'redirect'],
    [429, 'retry'],
    [500, 'retry'],
    [502, 'retry'],
    [503, 'retry'],
    [599, 'retry'],
    ...[400, 401, 403, 404, 405, 406, 410, 413, 414, 415, 422, 409, 418, 451].map((c) => [c, 'dead']),
  ] as [number, string][])('%i -> %s', (status, outcome) => {
    expect(classifyStatus(status)).toBe(outcome);
  });
});
