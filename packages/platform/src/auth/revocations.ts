import type { Redis } from 'ioredis';
import { type Batcher, oneCallAtATime } from '../batcher.js';

/**
 * Which sessions (refresh-token families) have ended. Access tokens carry their session id (`sid`), so
 * revoking a session makes every access token of it fail at once on every service that shares this store.
 * Entries only need to outlive the longest access token; after that, expiry does the work.
 */
export interface RevocationStore {
  revokeSessions(sessionIds: readonly string[], ttlSeconds: number): Promise<void>;
  isSessionRevoked(sessionId: string): Promise<boolean>;
}

export class MemoryRevocationStore implements RevocationStore {
  private readonly revoked = new Map<string, number>();
  constructor(private readonly now: () => number = Date.now) {}
  async revokeSessions(sessionIds: readonly string[], ttlSeconds: number): Promise<void> {
    const until = this.now() + ttlSeconds * 1000;
    for (const id of sessionIds) this.revoked.set(id, until);
    if (this.revoked.size > 10_000) this.sweep();
  }
  async isSessionRevoked(sessionId: string): Promise<boolean> {
    const until = this.revoked.get(sessionId);
    return until !== undefined && until > this.now();
  }
  private sweep(): void {
    const now = this.now();
    for (const [id, until] of this.revoked) if (until <= now) this.revoked.delete(id);
  }
}

/**
 * Concurrent checks share one MGET (a command per authenticated request was most of ioredis's work
 * per request); a batch answers each session exactly as its own EXISTS did.
 */
export class RedisRevocationStore implements RevocationStore {
  private readonly checks: Batcher<string, boolean>;

  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'routinely:revoked:sid:',
  ) {
    this.checks = oneCallAtATime(async (sessionIds: string[]) => {
      const values = await this.redis.mget(sessionIds.map((id) => this.prefix + id));
      return values.map((value) => value !== null);
    });
  }
  async revokeSessions(sessionIds: readonly string[], ttlSeconds: number): Promise<void> {
    if (sessionIds.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const id of sessionIds) pipeline.set(this.prefix + id, '1', 'EX', Math.max(1, Math.ceil(ttlSeconds)));
    await pipeline.exec();
  }
  isSessionRevoked(sessionId: string): Promise<boolean> {
    return this.checks.submit(sessionId);
  }
}
