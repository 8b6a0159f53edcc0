import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthHarness, postLogin, register, STRONG_PASSWORD, startAuth } from './harness.js';

let h: AuthHarness;
let second: Awaited<ReturnType<AuthHarness['restart']>>;
beforeAll(async () => {
  h = await startAuth({ redis: true, env: { LOGIN_MAX_FAILURES_PER_ACCOUNT_IP: '3', LOGIN_MAX_FAILURES_PER_IP: '6' } });
  // A second replica on the same database and Redis.
  second = await h.restart(h.revocations);
});
afterAll(() => h?.close());

// Counters in Redis outlive a test run: every run uses fresh addresses.
const randomIp = () => `172.${randomInt(16, 32)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;

describe('login throttle shared through Redis', () => {
  it('counts failures across replicas per (account, IP) and leaves other IPs alone', async () => {
    const { email } = await register(h.app);
    const ip = randomIp();
    const attempt = (app: typeof h.app, password: string, from: string) => postLogin(app, { email, password }, from);
    expect((await attempt(h.app, 'wrong one 111', ip)).statusCode).toBe(401);
    expect((await attempt(second.app, 'wrong one 222', ip)).statusCode).toBe(401);
    expect((await attempt(h.app, 'wrong one 333', ip)).statusCode).toBe(401);
    const blocked = await attempt(second.app, STRONG_PASSWORD, ip);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.headers['retry-after']).toBeDefined();
    expect((await attempt(second.app, STRONG_PASSWORD, randomIp())).statusCode).toBe(200);
    // An instance with another INFRA_NAMESPACE on the same Redis keeps its own counters.
    const elsewhere = await h.restart(undefined, { INFRA_NAMESPACE: `ns-${randomInt(1e9)}` });
    try {
      expect((await attempt(elsewhere.app, STRONG_PASSWORD, ip)).statusCode).toBe(200);
    } finally {
      await elsewhere.close();
    }
  });

  it('blocks an IP that fails against many accounts', async () => {
    const ip = randomIp();
    for (let i = 0; i < 6; i++) {
      const res = await postLogin(h.app, { email: `spray${i}.${ip}@example.test`, password: 'Spring2026!' }, ip);
      expect(res.statusCode).toBe(401);
    }
    const { email } = await register(h.app);
    const res = await postLogin(second.app, { email, password: STRONG_PASSWORD }, ip);
    expect(res.statusCode).toBe(429);
  });
});
