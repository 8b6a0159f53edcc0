import pg from 'pg';
import { searchPathOption } from './search-path.js';

/**
 * What the read pool needs of an ORM: its URL, schema and pool size. Structural, so this module and orm.ts
 * (which closes the pool with the ORM) do not import each other.
 */
export interface ReadPoolOwner {
  config: {
    get(key: 'clientUrl' | 'schema'): unknown;
    get(key: 'pool'): { max?: number } | undefined;
  };
}

/**
 * Type parsing as the ORM's pool does it (MikroORM's PostgreSqlConnection): dates, timestamps and intervals
 * stay text (callers parse them), their arrays become arrays of text. A row read through the read pool is then
 * the same row the ORM's pool returns.
 */
function ormTypes(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  const textArray = pg.types.getTypeParser(1009 as Parameters<typeof pg.types.getTypeParser>[0]); // text[]: pg's own array parser
  for (const oid of [1082, 1114, 1184, 1186]) types.setTypeParser(oid, (text: string) => text);
  for (const oid of [1182, 1115, 1185, 1187]) types.setTypeParser(oid, textArray);
  return types;
}

/**
 * Hot reads bypass knex (ADR 080): one `pg` pool per ORM (same URL, same search_path, same type parsing),
 * opened on first use and closed with the ORM. Knex and the ORM's pool around the same statements cost the task
 * read about 20 % more server CPU per request. Statements go as plain text with their parameters: named
 * prepared statements saved nothing measurable on top (perf log, 2026-11-27) and would tie the pool to
 * session pooling and to plan-cache settings.
 */
const pools = new WeakMap<ReadPoolOwner, pg.Pool>();

export function readPoolOf(orm: ReadPoolOwner): pg.Pool {
  let pool = pools.get(orm);
  if (!pool) {
    const schema = String(orm.config.get('schema'));
    pool = new pg.Pool({
      connectionString: String(orm.config.get('clientUrl')),
      options: searchPathOption(schema),
      types: ormTypes(),
      max: orm.config.get('pool')?.max ?? 10,
      idleTimeoutMillis: 30_000,
    });
    // An idle client losing its server (restart, failover) must not crash the process; the pool drops it.
    pool.on('error', () => {});
    pools.set(orm, pool);
  }
  return pool;
}

/** Ends the ORM's read pool, if one was opened (`openOrm` calls this when the ORM closes). */
export async function closeReadPool(orm: ReadPoolOwner): Promise<void> {
  const pool = pools.get(orm);
  if (!pool) return;
  pools.delete(orm);
  await pool.end();
}

/**
 * `?` placeholders (knex's) as `$1, $2, ...` (PostgreSQL's), cached per statement text. A few statements are
 * built per call (a column list, a row count): the cache starts over past POSITIONAL_CACHE_SIZE texts.
 */
const positional = new Map<string, string>();
const POSITIONAL_CACHE_SIZE = 2_000;

export function toPositional(query: string): string {
  let text = positional.get(query);
  if (text === undefined) {
    let n = 0;
    text = query.replace(/\?/g, () => `$${++n}`);
    if (positional.size >= POSITIONAL_CACHE_SIZE) positional.clear();
    positional.set(query, text);
  }
  return text;
}
