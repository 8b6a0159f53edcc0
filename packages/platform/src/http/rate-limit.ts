import type { Redis } from 'ioredis';
import { RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';
import { oneCallAtATime } from '../batcher.js';

export interface RateLimitPolicy {
  perMinute: number;
  perHour: number;
  burst: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
  retryAfterSeconds: number;
}

/** One window after this request counted: how many requests it holds now and when it starts afresh. */
interface WindowCount {
  consumed: number;
  msBeforeNext: number;
}

/**
 * The three fixed windows in one script, so a request costs one Redis round trip (one EVALSHA) instead of
 * three. Per key it does exactly what rate-limiter-flexible's RateLimiterRedis script did (create the counter
 * with its expiry if absent, add one, read the remaining TTL, repair a counter that lost its expiry), so the
 * keys, the counts and the TTLs are the ones the earlier limiter kept. ARGV holds each key's window in seconds.
 * Concurrent requests share one call (their keys one after the other, in arrival order): the counts are the
 * ones one call per request gave, for one command instead of one per request (ioredis's work per
 * command was about a tenth of a single-row read's CPU).
 */
const CONSUME_WINDOWS_LUA = `
local out = {}
for i = 1, #KEYS do
  local duration = ARGV[i]
  redis.call('set', KEYS[i], 0, 'EX', duration, 'NX')
  local consumed = redis.call('incrby', KEYS[i], 1)
  local ttl = redis.call('pttl', KEYS[i])
  if ttl == -1 then
    redis.call('expire', KEYS[i], duration)
    ttl = 1000 * duration
  end
  out[2 * i - 1] = consumed
  out[2 * i] = ttl
end
return out
`;

type RedisWithWindows = Redis & { routinelyConsumeWindowsOf(...args: (string | number)[]): Promise<number[]> };

interface Window {
  limit: number;
  seconds: number;
  /** Name in the key (`<scope>:<name>:<ip>`), as rate-limiter-flexible's keyPrefix made it. */
  name: string;
}

/**
 * The per-client-IP limit: three windows checked together (burst per second, per minute, per hour).
 * With Redis every process shares the counters (one script per request); without it they live in this
 * process. The tightest window is the one reported in the RateLimit-* headers.
 */
export class IpRateLimiter {
  private readonly windows: readonly Window[];
  private readonly count: (ip: string) => Promise<WindowCount[]>;

  /** `namespace` keeps the Redis counters of instances sharing one server apart (INFRA_NAMESPACE, tests). */
  constructor(policy: RateLimitPolicy, redis?: Redis, namespace = '') {
    this.windows = [
      { limit: policy.burst, seconds: 1, name: 'burst' },
      { limit: policy.perMinute, seconds: 60, name: 'minute' },
      { limit: policy.perHour, seconds: 3600, name: 'hour' },
    ];
    this.count = redis ? this.redisCounter(redis, namespace) : this.memoryCounter();
  }

  private redisCounter(redis: Redis, namespace: string): (ip: string) => Promise<WindowCount[]> {
    const scope = namespace ? `routinely:${namespace}:rl` : 'routinely:rl';
    // No fixed key count: the first argument says how many keys follow (three per request of the call).
    if (!('routinelyConsumeWindowsOf' in redis))
      redis.defineCommand('routinelyConsumeWindowsOf', { lua: CONSUME_WINDOWS_LUA });
    const client = redis as RedisWithWindows;
    const prefixes = this.windows.map((w) => `${scope}:${w.name}:`);
    const seconds = this.windows.map((w) => w.seconds);
    const perIp = this.windows.length;
    const batcher = oneCallAtATime(async (ips: string[]) => {
      const keys = ips.flatMap((ip) => prefixes.map((prefix) => prefix + ip));
      const flat = await client.routinelyConsumeWindowsOf(keys.length, ...keys, ...ips.flatMap(() => seconds));
      return ips.map((_, n) =>
        this.windows.map((_, i) => ({
          consumed: Number(flat[2 * (n * perIp + i)]),
          msBeforeNext: Number(flat[2 * (n * perIp + i) + 1]),
        })),
      );
    });
    return (ip) => batcher.submit(ip);
  }

  private memoryCounter(): (ip: string) => Promise<WindowCount[]> {
    const limiters = this.windows.map(
      (w) => new RateLimiterMemory({ points: w.limit, duration: w.seconds, keyPrefix: w.name }),
    );
    return (ip) =>
      Promise.all(
        limiters.map(async (limiter) => {
          let res: RateLimiterRes;
          try {
            res = await limiter.consume(ip);
          } catch (rejection) {
            if (rejection instanceof Error) throw rejection;
            res = rejection as RateLimiterRes;
          }
          return { consumed: res.consumedPoints, msBeforeNext: res.msBeforeNext };
        }),
      );
  }

  async consume(ip: string): Promise<RateLimitDecision> {
    const counts = await this.count(ip);
    const results = counts.map((count, i) => {
      const limit = this.windows[i]?.limit ?? 0;
      return {
        limit,
        msBeforeNext: count.msBeforeNext,
        remaining: Math.max(limit - count.consumed, 0),
        allowed: count.consumed <= limit,
      };
    });
    const blocked = results.filter((r) => !r.allowed);
    const relevant = blocked.length > 0 ? blocked : results;
    // Report the window that binds: the blocking one with the longest wait, else the one with least left.
    const binding = relevant.reduce((a, b) =>
      blocked.length > 0
        ? a.msBeforeNext >= b.msBeforeNext
          ? a
          : b
        : a.remaining / a.limit <= b.remaining / b.limit
          ? a
          : b,
    );
    const resetSeconds = Math.max(1, Math.ceil(binding.msBeforeNext / 1000));
    return {
      allowed: blocked.length === 0,
      limit: binding.limit,
      remaining: Math.max(0, binding.remaining),
      resetSeconds,
      retryAfterSeconds: resetSeconds,
    };
  }
}
