import type { Sql } from '@routinely/db';

/** What a per-user lock serialises; each is its own lock, so placing never waits for a quota decision. */
export type UserLockPurpose = 'quota' | 'placement';

/**
 * Takes the user's advisory lock for `purpose` until the transaction ends (commit, rollback, or the session
 * dying with its process). One key scheme, `scheduler:<purpose>:<user id>`, hashed to PostgreSQL's bigint.
 */
export const lockUserFor = (sql: Sql, purpose: UserLockPurpose, userId: string): Promise<void> =>
  sql.advisoryLock(`scheduler:${purpose}:${userId}`);
