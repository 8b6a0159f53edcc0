import type { Sql } from '@routinely/db';

/** What a per-user lock serialises; each is its own lock, so placing never waits for a quota decision. */
export type UserLockPurpose = 'quota' | 'placement';

/** The one key scheme of the scheduler's per-user advisory locks: `scheduler:<purpose>:<user id>`. */
export const userLockKey = (purpose: UserLockPurpose, userId: string) => `scheduler:${purpose}:${userId}`;

/** Takes the user's advisory lock for `purpose` until the transaction ends (or the session dies with its process). */
export const lockUserFor = (sql: Sql, purpose: UserLockPurpose, userId: string): Promise<void> =>
  sql.advisoryLock(userLockKey(purpose, userId));
