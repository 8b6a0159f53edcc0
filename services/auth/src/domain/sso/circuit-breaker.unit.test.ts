import { AppError, ManualClock } from '@routinely/platform';
import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from './circuit-breaker.js';

const breaker = (clock: ManualClock, timeoutMs = 50) =>
  new CircuitBreaker({ clock, failureThreshold: 5, openMs: 30_000, timeoutMs });
const fail = () => Promise.reject(new Error('connection refused'));
const succeed = () => Promise.resolve('ok');

describe('CircuitBreaker', () => {
  it('opens after 5 consecutive failures, a success in between resets the count', async () => {
    const clock = new ManualClock();
    const b = breaker(clock);
    for (let i = 0; i < 4; i += 1) await expect(b.run(fail)).rejects.toMatchObject({ code: 'sso_unavailable' });
    await b.run(succeed);
    expect(b.snapshot()).toEqual({ state: 'closed', failures: 0 });
    for (let i = 0; i < 5; i += 1) await expect(b.run(fail)).rejects.toBeInstanceOf(AppError);
    expect(b.snapshot()).toEqual({ state: 'open', failures: 5 });
  });

  it('fails fast while open without calling, lets one trial through after the open period', async () => {
    const clock = new ManualClock();
    const b = breaker(clock);
    for (let i = 0; i < 5; i += 1) await b.run(fail).catch(() => {});
    let calls = 0;
    const counted = async () => {
      calls += 1;
      return 'ok';
    };
    await expect(b.run(counted)).rejects.toMatchObject({ code: 'sso_unavailable' });
    expect(calls).toBe(0);
    clock.advance(29_999);
    expect(b.state).toBe('open');
    clock.advance(1);
    expect(b.state).toBe('half_open');
    // Only one trial at a time.
    let release: (v: string) => void = () => {};
    const slow = b.run(() => new Promise<string>((resolve) => (release = resolve)));
    await expect(b.run(counted)).rejects.toMatchObject({ code: 'sso_unavailable' });
    release('ok');
    await slow;
    expect(b.snapshot()).toEqual({ state: 'closed', failures: 0 });
  });

  it('a failed trial re-opens for a full period; a timeout counts as a failure', async () => {
    const clock = new ManualClock();
    const b = breaker(clock, 20);
    for (let i = 0; i < 5; i += 1) await b.run(fail).catch(() => {});
    clock.advance(30_000);
    await expect(b.run(() => new Promise(() => {}))).rejects.toThrow(/did not answer in time/);
    expect(b.snapshot()).toEqual({ state: 'open', failures: 6 });
    clock.advance(29_000);
    expect(b.state).toBe('open');
  });

  it('counts a 5xx answer as a failure and a 4xx as a working provider', async () => {
    const clock = new ManualClock();
    const b = breaker(clock);
    const answer = (status: number) =>
      b.run(
        async () => new Response(null, { status }),
        (r) => r.status >= 500,
      );
    await answer(503);
    await answer(502);
    expect(b.snapshot().failures).toBe(2);
    await answer(401);
    expect(b.snapshot().failures).toBe(0);
  });
});
