import { Mutex } from 'async-mutex';
import { userLockKey } from '../db/user-locks-sql.js';

/**
 * Runs `work` while holding PostgreSQL's transaction-scoped advisory lock on `key`, on a connection kept for
 * locks (`withAdvisoryLock` of @routinely/db, which app.ts binds to the service's database).
 */
type AdvisoryLocks = <T>(key: string, work: () => Promise<T>) => Promise<T>;

/**
 * One user's placements, one at a time, across every replica: whatever places a user's tasks (a run's batch,
 * a reflow, an override, a conflict re-placement) reads the busy time and applies its slots inside
 * `run(userId, fn)`, so it always sees the slots the previous one applied and no two placements overlap.
 *
 * The lock is PostgreSQL's transaction-scoped advisory lock on the user, held on a connection of the lock pool
 * (it dies with its holder's session) while `fn` works on the service's pool. A process queues its own waiters
 * of one user in memory first, so a user's parallel requests hold one lock connection, not one each.
 */
export class PlacementLock {
  private readonly users = new Map<string, { mutex: Mutex; waiting: number }>();

  constructor(private readonly holdLock: AdvisoryLocks) {}

  async run<T>(userId: string, fn: () => Promise<T>): Promise<T> {
    const entry = this.users.get(userId) ?? { mutex: new Mutex(), waiting: 0 };
    this.users.set(userId, entry);
    entry.waiting += 1;
    try {
      return await entry.mutex.runExclusive(() => this.holdLock(userLockKey('placement', userId), fn));
    } finally {
      entry.waiting -= 1;
      if (entry.waiting === 0) this.users.delete(userId);
    }
  }
}
