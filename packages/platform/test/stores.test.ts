import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IpRateLimiter, ManualClock, MemoryRevocationStore, RedisRevocationStore } from '../src/index.js';
import { defined } from '../src/testing.js';

// The integration tier's global setup provides REDIS_URL. This package's tests cannot use the testkit (which
// depends on it), so they open their clients and name their keys here.
const createTestRedis = () =>
  new Redis(defined(process.env.REDIS_URL, 'REDIS_URL'), { maxRetriesPerRequest: 3, lazyConnect: false });
const uniqueName = (prefix: string) => `${prefix}_${randomBytes(6).toString('hex')}`;

let redis: Redis;
beforeAll(() => {
  redis = createTestRedis();
});
afterAll(() => redis.quit());

describe('revocation stores', () => {
  it('in memory: revoked until the TTL passes', async () => {
    const clock = new ManualClock();
    const store = new MemoryRevocationStore(() => clock.now().getTime());
    await store.revokeSessions(['s1'], 60);
    expect(await store.isSessionRevoked('s1')).toBe(true);
    expect(await store.isSessionRevoked('s2')).toBe(false);
    clock.advance(61_000);
    expect(await store.isSessionRevoked('s1')).toBe(false);
  });

  it('in Redis: visible to every process sharing the server', async () => {
    const prefix = `${uniqueName('rv')}:`;
    const writer = new RedisRevocationStore(redis, prefix);
    const reader = new RedisRevocationStore(createTestRedis(), prefix);
    await writer.revokeSessions(['a', 'b'], 60);
    expect(await reader.isSessionRevoked('a')).toBe(true);
    expect(await reader.isSessionRevoked('b')).toBe(true);
    expect(await reader.isSessionRevoked('c')).toBe(false);
    expect(await redis.ttl(`${prefix}a`)).toBeGreaterThan(50);
  });

  it('in Redis: concurrent checks share one command and each gets its own answer', async () => {
    const prefix = `${uniqueName('rv')}:`;
    const store = new RedisRevocationStore(redis, prefix);
    await store.revokeSessions(['r1', 'r3'], 60);
    const reader = createTestRedis();
    const commands: string[] = [];
    const sessions = ['r1', 'r2', 'r3', 'r4', 'r1'];
    const concurrent = new RedisRevocationStore(reader, prefix);
    const monitor = await redis.monitor();
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args.some((a) => a.startsWith(prefix))) commands.push(String(args[0]).toLowerCase());
    });
    expect(await Promise.all(sessions.map((id) => concurrent.isSessionRevoked(id)))).toEqual([
      true,
      false,
      true,
      false,
      true,
    ]);
    await monitor.disconnect();
    await reader.quit();
    // The first check goes at once, the four that arrived meanwhile share the next command.
    expect(commands).toEqual(['mget', 'mget']);
  });
});

describe('rate limiter shared through Redis', () => {
  it('counts requests from two processes against one budget', async () => {
    const ip = `10.0.0.${Math.floor(Math.random() * 250)}-${uniqueName('ip')}`;
    const a = new IpRateLimiter({ perMinute: 5, perHour: 100, burst: 100 }, redis);
    const b = new IpRateLimiter({ perMinute: 5, perHour: 100, burst: 100 }, createTestRedis());
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push(await (i % 2 === 0 ? a : b).consume(ip));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
    const last = defined(decisions[5]);
    expect(last.limit).toBe(5);
    expect(last.remaining).toBe(0);
    expect(last.retryAfterSeconds).toBeGreaterThan(0);
    expect(last.retryAfterSeconds).toBeLessThanOrEqual(60);
  });

  it('counts concurrent requests of several addresses in shared commands as one command each would', async () => {
    const namespace = uniqueName('ns');
    const limiter = new IpRateLimiter({ perMinute: 3, perHour: 100, burst: 100 }, redis, namespace);
    const ips = ['10.9.0.1', '10.9.0.2', '10.9.0.1', '10.9.0.1', '10.9.0.2', '10.9.0.1'];
    const decisions = await Promise.all(ips.map((ip) => limiter.consume(ip)));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 2, 1, 0, 1, 0]);
    expect(await redis.get(`routinely:${namespace}:rl:minute:10.9.0.1`)).toBe('4');
    expect(await redis.get(`routinely:${namespace}:rl:minute:10.9.0.2`)).toBe('2');
  });

  it('keeps the budgets of instances in different namespaces apart on one server', async () => {
    const ip = '127.0.0.1';
    const policy = { perMinute: 2, perHour: 100, burst: 100 };
    const first = new IpRateLimiter(policy, redis, uniqueName('ns'));
    const second = new IpRateLimiter(policy, redis, uniqueName('ns'));
    const spent = [await first.consume(ip), await first.consume(ip), await first.consume(ip)];
    expect(spent.map((d) => d.allowed)).toEqual([true, true, false]);
    expect((await second.consume(ip)).allowed).toBe(true);
  });

  it('keeps each window in its own key with that window as expiry (the keys rate-limiter-flexible used)', async () => {
    const namespace = uniqueName('ns');
    const limiter = new IpRateLimiter({ perMinute: 50, perHour: 100, burst: 10 }, redis, namespace);
    await limiter.consume('10.1.2.3');
    const decision = await limiter.consume('10.1.2.3');
    // burst binds: 8 of 10 left against 48 of 50 and 98 of 100.
    expect(decision).toMatchObject({ allowed: true, limit: 10, remaining: 8, resetSeconds: 1 });
    for (const [window, seconds] of [
      ['burst', 1],
      ['minute', 60],
      ['hour', 3600],
    ] as const) {
      const key = `routinely:${namespace}:rl:${window}:10.1.2.3`;
      expect(await redis.get(key)).toBe('2');
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(seconds * 1000);
    }
  });
});
