import type { Redis } from 'ioredis';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
  type RateLimiterRes,
} from 'rate-limiter-flexible';

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

/**
 * The per-client-IP limit: three windows checked together (burst per second, per minute, per hour).
 * With Redis every process shares the counters; without it they live in this process.
 * The tightest window is the one reported in the RateLimit-* headers.
 */
export class IpRateLimiter {
  private readonly windows: { limiter: RateLimiterAbstract; limit: number }[];
  /** `namespace` keeps the Redis counters of instances sharing one server apart (INFRA_NAMESPACE, tests). */
  constructor(policy: RateLimitPolicy, redis?: Redis, namespace = '') {
    const scope = namespace ? `routinely:${namespace}:rl` : 'routinely:rl';
    const make = (points: number, duration: number, keyPrefix: string) =>
      redis
        ? new RateLimiterRedis({ storeClient: redis, points, duration, keyPrefix: `${scope}:${keyPrefix}` })
        : new RateLimiterMemory({ points, duration, keyPrefix });
    this.windows = [
      { limiter: make(policy.burst, 1, 'burst'), limit: policy.burst },
      { limiter: make(policy.perMinute, 60, 'minute'), limit: policy.perMinute },
      { limiter: make(policy.perHour, 3600, 'hour'), limit: policy.perHour },
    ];
  }

  async consume(ip: string): Promise<RateLimitDecision> {
    const results = await Promise.all(
      this.windows.map(async ({ limiter, limit }) => {
        try {
          return { res: await limiter.consume(ip), limit, allowed: true };
        } catch (rejection) {
          if (rejection instanceof Error) throw rejection;
          return { res: rejection as RateLimiterRes, limit, allowed: false };
        }
      }),
    );
    const blocked = results.filter((r) => !r.allowed);
    const relevant = blocked.length > 0 ? blocked : results;
    // Report the window that binds: the blocking one with the longest wait, else the one with least left.
    const binding = relevant.reduce((a, b) =>
      blocked.length > 0
        ? a.res.msBeforeNext >= b.res.msBeforeNext
          ? a
          : b
        : a.res.remainingPoints / a.limit <= b.res.remainingPoints / b.limit
          ? a
          : b,
    );
    const resetSeconds = Math.max(1, Math.ceil(binding.res.msBeforeNext / 1000));
    return {
      allowed: blocked.length === 0,
      limit: binding.limit,
      remaining: Math.max(0, binding.res.remainingPoints),
      resetSeconds,
      retryAfterSeconds: resetSeconds,
    };
  }
}
