import { lockPoolOf } from './lock-pool.js';
import type { Orm } from './orm.js';
import { readPoolOf } from './read-pool.js';
import { searchPathOf } from './search-path.js';

/** The search_path each pool of the ORM hands its connections out with (one connection of each asked). */
export async function searchPathsOf(orm: Orm): Promise<{ orm: string; read: string; lock: string }> {
  const rows = (await orm.em.getConnection().execute("select current_setting('search_path') as path")) as {
    path: string;
  }[];
  const ormPath = String(rows[0]?.path).replace(/^"(.*)"$/, '$1');
  const fromPool = async (pool: ReturnType<typeof readPoolOf>) => {
    const client = await pool.connect();
    try {
      return await searchPathOf(client);
    } finally {
      client.release();
    }
  };
  return { orm: ormPath, read: await fromPool(readPoolOf(orm)), lock: await fromPool(lockPoolOf(orm)) };
}

/**
 * Refuses to start a service whose connections are not pinned to its own schema (ADR 029): an unqualified
 * statement would otherwise read or write whatever schema the server's default search_path names.
 */
export async function assertPinnedToSchema(orm: Orm): Promise<void> {
  const schema = String(orm.config.get('schema'));
  const paths = await searchPathsOf(orm);
  const wrong = Object.entries(paths).filter(([, path]) => path !== schema);
  if (wrong.length > 0) {
    const found = wrong.map(([pool, path]) => `${pool} pool: ${path}`).join(', ');
    throw new Error(`connections of schema ${schema} are not pinned to it (${found})`);
  }
}
