import { type AnyEntity, type EntitySchema, type MigrationObject, MikroORM } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import pg from 'pg';
import { closeLockPool } from './lock-pool.js';
import { closeReadPool } from './read-pool.js';
import { searchPathOption } from './search-path.js';

export type Orm = MikroORM<PostgreSqlDriver>;

export interface ServiceDbConfig {
  /** The PostgreSQL schema this service owns. */
  schema: string;
  // MikroORM's own option type is EntitySchema<any, never>: defineEntity's inferred entities are invariant in
  // their type parameter, so nothing narrower than `any` accepts every service's entities.
  // biome-ignore lint/suspicious/noExplicitAny: mirrors MikroORM's `entities` option type (see above)
  entities: EntitySchema<AnyEntity, never>[] | EntitySchema<any, any>[];
  migrations: MigrationObject[];
}

/** Creates the service's schema if needed (the one DDL outside migrations: migrations live inside it). */
export async function ensureSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Checked first: CREATE SCHEMA IF NOT EXISTS needs CREATE on the database even when the schema exists,
    // and a service role only owns its schema.
    const { rowCount } = await client.query('select 1 from pg_namespace where nspname = $1', [schema]);
    if (!rowCount) {
      // Another process starting at the same moment may create it between the check and this statement.
      await client.query(`CREATE SCHEMA "${schema}"`).catch((error: { code?: string }) => {
        if (error.code !== '42P06' && error.code !== '23505') throw error;
      });
    }
  } finally {
    await client.end();
  }
}

/**
 * Opens MikroORM on the service's own schema (search_path pinned to it, so raw SQL stays inside) and
 * applies the committed migrations unless `migrate: false` (a migration Job or init container applied them).
 */
export async function openOrm(
  url: string,
  config: ServiceDbConfig,
  options: { poolMax?: number; migrate?: boolean } = {},
): Promise<Orm> {
  await ensureSchema(url, config.schema);
  const orm = await MikroORM.init<PostgreSqlDriver>({
    driver: PostgreSqlDriver,
    clientUrl: url,
    schema: config.schema,
    // MikroORM finds the EntityManager of a running transaction by this name in the async context. With the
    // default name every ORM of a process shares one: a service's transaction opened while another service's
    // ran (an in-process consumer woken from inside that transaction) forked the other one's EntityManager and
    // ran on its connection, its schema (ADR 029). One name per schema keeps each on its own pool.
    contextName: config.schema,
    entities: config.entities,
    extensions: [Migrator],
    migrations: {
      migrationsList: config.migrations,
      tableName: 'mikro_orm_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
    },
    driverOptions: { connection: { options: searchPathOption(config.schema) } },
    pool: { min: 0, max: options.poolMax ?? 10 },
    allowGlobalContext: false,
    forceUtcTimezone: true,
    discovery: { warnWhenNoEntities: false },
    debug: false,
  });
  if (options.migrate !== false) await applyMigrations(orm, url);
  // The read and lock pools (read-pool.ts, lock-pool.ts) live as long as the ORM: closing the ORM ends them too.
  const closeOrm = orm.close.bind(orm);
  orm.close = async (force?: boolean) => {
    await closeReadPool(orm);
    await closeLockPool(orm);
    return closeOrm(force);
  };
  return orm;
}

/**
 * Applies the schema's pending migrations under a session advisory lock on a connection of its own, so
 * replicas (or migration init containers) starting together never run the same migration twice: the first
 * applies them, the others wait and then find nothing pending. Returns the names it applied.
 */
export async function applyMigrations(orm: Orm, url: string): Promise<string[]> {
  const key = `routinely:migrations:${String(orm.config.get('schema'))}`;
  const lock = new pg.Client({ connectionString: url });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock(hashtextextended($1, 0))', [key]);
    const applied = await orm.migrator.up();
    return applied.map((migration) => migration.name);
  } finally {
    // Ending the session releases the lock too; unlocking first keeps the release explicit.
    await lock.query('select pg_advisory_unlock(hashtextextended($1, 0))', [key]).catch(() => {});
    await lock.end();
  }
}

/** Names of committed migrations not yet applied to the schema. */
export async function pendingMigrations(orm: Orm): Promise<string[]> {
  return (await orm.migrator.getPendingMigrations()).map((migration) => migration.name);
}

/** SQL that would bring the database in line with the entities: empty when migrations match them. */
export async function schemaDrift(orm: Orm): Promise<string> {
  const sql = await orm.schema.getUpdateSchemaSQL({ wrap: false, safe: false, schema: orm.config.get('schema') });
  return sql.trim();
}

/** Readiness check every service runs against its own pool. */
export async function databaseReady(orm: Orm): Promise<void> {
  await orm.em.getConnection().execute('select 1');
}

/** What the metrics read of an ORM's connection pool (knex's tarn pool). */
export interface ConnectionPoolState {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

/** The ORM's connection pool, once knex has opened it (undefined before the first query). */
export function connectionPoolOf(orm: Orm): ConnectionPoolState | undefined {
  const client = orm.em.getKnex().client as { pool?: ConnectionPoolState };
  return client.pool;
}
