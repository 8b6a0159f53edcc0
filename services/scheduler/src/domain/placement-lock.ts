import { type Orm, Sql } from '@routinely/db';
import { Mutex, Semaphore } from 'async-mutex';
import { lockUserFor } from '../db/user-locks.js';

/**
 * One user's placements, one at a time, across every replica: whatever places a user's tasks (a run's batch,
 * a reflow, an override, a conflict re-placement) reads the busy time and applies its slots inside
 * `run(userId, fn)`, so it always sees the slots the previous one applied and no two placements overlap.
 *
 * The lock is PostgreSQL's transaction-scoped advisory lock on the user (it dies with its holder's session),
 * held on one pooled connection while `fn` works on others. So that waiting never eats the pool, a process
 * queues its own waiters in memory (one mutex per user: one connection per user waits or holds) and lets at
 * most half the pool hold placement locks at once (the other half stays free for the work inside them and
 * for everything else).
 */
export class PlacementLock {
  private readonly users = new Map<string, { mutex: Mutex; users: number }>();
  private readonly holders: Semaphore;

  constructor(
    private readonly orm: Orm,
    poolMax: number,
  ) {
    this.holders = new Semaphore(Math.max(1, Math.floor(poolMax / 2)));
  }

  async run<T>(userId: string, fn: () => Promise<T>): Promise<T> {
    const entry = this.users.get(userId) ?? { mutex: new Mutex(), users: 0 };
    this.users.set(userId, entry);
    entry.users += 1;
    try {
      return await entry.mutex.runExclusive(() =>
        this.holders.runExclusive(() =>
          Sql.transaction(this.orm, async (sql) => {
            await lockUserFor(sql, 'placement', userId);
            return fn();
          }),
        ),
      );
    } finally {
      entry.users -= 1;
      if (entry.users === 0) this.users.delete(userId);
    }
  }
}
