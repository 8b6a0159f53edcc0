import pg from 'pg';
import { searchPathOption } from './search-path.js';

/**
 * What the lock pool needs of an ORM: its connection URL and schema. Structural, so this module and orm.ts
 * (which closes the pool with the ORM) do not import each other.
 */
interface LockPoolOwner {
  config: { get(key: 'clientUrl' | 'schema'): unknown };
}

/** Connections a process may hold advisory locks on at once (each waiting for or holding one key). */
const LOCK_POOL_MAX = 20;

const pools = new WeakMap<LockPoolOwner, pg.Pool>();

export function lockPoolOf(orm: LockPoolOwner): pg.Pool {
  let pool = pools.get(orm);
  if (!pool) {
    pool = new pg.Pool({
      connectionString: String(orm.config.get('clientUrl')),
      // Pinned like every pool of the service (search-path.ts), though it only takes locks today: a statement
      // added here later must not depend on what the server's default search_path happens to be.
      options: searchPathOption(String(orm.config.get('schema'))),
      max: LOCK_POOL_MAX,
      idleTimeoutMillis: 30_000,
    });
    // An idle client losing its server must not crash the process; the pool drops it.
    pool.on('error', () => {});
    pools.set(orm, pool);
  }
  return pool;
}

/**
 * Runs `work` while holding the transaction-scoped advisory lock on `key` (keys start with the owning service's
 * name). The lock sits on a connection of a pool kept for locks, so a holder doing its work on the ORM's pool
 * never waits for a connection a lock waiter holds: waiting for a lock cannot starve the work under one. The
 * lock ends with `work` (commit) or with the session, if the process dies.
 */
export async function withAdvisoryLock<T>(orm: LockPoolOwner, key: string, work: () => Promise<T>): Promise<T> {
  const client = await lockPoolOf(orm).connect();
  let broken: Error | undefined;
  try {
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
    try {
      return await work();
    } finally {
      await client.query('commit').catch((error: Error) => {
        broken = error;
      });
    }
  } catch (error) {
    broken ??= error as Error;
    throw error;
  } finally {
    // A connection whose transaction did not end cleanly is dropped, never handed to the next holder.
    client.release(broken);
  }
}

/** Ends the ORM's lock pool, if one was opened (`openOrm` calls this when the ORM closes). */
export async function closeLockPool(orm: LockPoolOwner): Promise<void> {
  const pool = pools.get(orm);
  if (!pool) return;
  pools.delete(orm);
  await pool.end();
}
