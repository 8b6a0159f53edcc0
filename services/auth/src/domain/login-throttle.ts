import { AppError } from '@routinely/platform';
import type { Redis } from 'ioredis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';

export interface LoginThrottlePolicy {
  maxFailuresPerAccountIp: number;
  maxFailuresPerIp: number;
  slowdownAfterAccountFailures: number;
  windowSeconds: number;
}

const MAX_DELAY_MS = 4_000;

/** The wait before checking a password: doubles with each failure against the account past the threshold. */
const slowdownMs = (over: number) => (over > 0 ? Math.min(MAX_DELAY_MS, 100 * 2 ** Math.min(over - 1, 10)) : 0);

const pairKey = (account: string, ip: string) => `${account}|${ip}`;

/**
 * Failed-login throttle (docs/adr/012). Blocks an (account, IP) pair and a noisy IP; failures against an
 * account from all IPs only slow its logins down, so an attacker can never lock the owner out from another
 * IP. Counters live in Redis when given (shared by replicas), else in this process. Keys use the submitted
 * email, known or not, so the throttle behaves the same for unknown accounts (no enumeration).
 */
export class LoginThrottle {
  private readonly pair: RateLimiterAbstract;
  private readonly ip: RateLimiterAbstract;
  private readonly account: RateLimiterAbstract;

  constructor(
    private readonly policy: LoginThrottlePolicy,
    redis?: Redis,
    namespace = '',
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    // INFRA_NAMESPACE: instances sharing one Redis (tests) keep their counters apart.
    const scope = namespace ? `routinely:${namespace}:login` : 'routinely:login';
    const make = (keyPrefix: string, points: number, duration: number, blockDuration = 0) =>
      redis
        ? new RateLimiterRedis({
            storeClient: redis,
            keyPrefix: `${scope}:${keyPrefix}`,
            points,
            duration,
            blockDuration,
          })
        : new RateLimiterMemory({ keyPrefix, points, duration, blockDuration });
    this.pair = make('pair', policy.maxFailuresPerAccountIp, policy.windowSeconds, policy.windowSeconds);
    this.ip = make('ip', policy.maxFailuresPerIp, 3600, 3600);
    // Only counts; never blocks (points far above any real count).
    this.account = make('acct', 1_000_000, policy.windowSeconds);
  }

  /**
   * Before a password (or MFA code) check: throws 429 when this IP, or this IP against this account, has failed
   * too often; else waits as long as the account's failures from every IP ask for.
   */
  async gate(email: string, ip: string): Promise<void> {
    const account = email.toLowerCase();
    const [pair, byIp, byAccount] = await Promise.all([
      this.pair.get(pairKey(account, ip)),
      this.ip.get(ip),
      this.account.get(account),
    ]);
    const blocked = [
      { res: pair, limit: this.policy.maxFailuresPerAccountIp },
      { res: byIp, limit: this.policy.maxFailuresPerIp },
    ].filter(({ res, limit }) => res && res.consumedPoints >= limit);
    if (blocked.length > 0) {
      const waitMs = Math.max(...blocked.map(({ res }) => res?.msBeforeNext ?? 1000));
      const retryAfter = String(Math.max(1, Math.ceil(waitMs / 1000)));
      throw new AppError('rate_limited', 'Too many failed logins; retry later', {
        headers: { 'Retry-After': retryAfter },
      });
    }
    const delayMs = slowdownMs((byAccount?.consumedPoints ?? 0) - this.policy.slowdownAfterAccountFailures);
    if (delayMs > 0) await this.sleep(delayMs);
  }

  async recordFailure(email: string, ip: string): Promise<void> {
    const account = email.toLowerCase();
    // A rejection only means the limit is reached; gate() reports it on the next attempt.
    const swallow = (p: Promise<unknown>) =>
      p.catch((e: unknown) => (e instanceof Error ? Promise.reject(e) : undefined));
    await Promise.all([
      swallow(this.pair.consume(pairKey(account, ip))),
      swallow(this.ip.consume(ip)),
      swallow(this.account.consume(account)),
    ]);
  }

  /** A correct password from this IP clears that pair's failures (not the IP's or the account's). */
  async recordSuccess(email: string, ip: string): Promise<void> {
    await this.pair.delete(pairKey(email.toLowerCase(), ip));
  }
}
