import {
  column,
  type Orm,
  openOrm,
  row,
  Sql,
  searchPathsOf,
  serviceDatabaseUrl,
  withAdvisoryLock,
} from '@routinely/db';
import { createTestDatabase, quietLogger } from '@routinely/testkit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_MODULES } from '../src/modules.js';

/**
 * A statement that names no schema resolves through its connection's search_path. Every service of a
 * process must run each statement on a connection of its own pool, pinned to its own schema (ADR 029), whatever
 * else the process did before (the all-in-one runs all six on one PostgreSQL).
 */
let db: Awaited<ReturnType<typeof createTestDatabase>>;
const orms = new Map<string, Orm>();
const SCHEMAS = SERVICE_MODULES.map((module) => module.dbConfig.schema);

beforeAll(async () => {
  db = await createTestDatabase();
  for (const schema of SCHEMAS) {
    // Each service on its own role, as the host connects it; no migrations needed for what is asked here.
    const url = await serviceDatabaseUrl(db.url, schema, 'pinning-secret', quietLogger());
    orms.set(schema, await openOrm(url, { schema, entities: [], migrations: [] }, { migrate: false }));
  }
});
afterAll(async () => {
  for (const orm of orms.values()) await orm.close();
  await db?.drop();
});

const currentSchema = (sql: Sql) => sql.first(row({ schema: column.text }), 'select current_schema() as schema');

describe('every statement of a service runs on its own schema', () => {
  it("hands out connections pinned to the service's schema from every pool it opens", async () => {
    for (const [schema, orm] of orms) {
      expect(await searchPathsOf(orm)).toEqual({ orm: schema, read: schema, lock: schema });
    }
  });

  it("gives the service's role its schema as the default search_path, for any connection opened with its URL", async () => {
    for (const schema of SCHEMAS) {
      const url = await serviceDatabaseUrl(db.url, schema, 'pinning-secret', quietLogger());
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ schema: string }>('select current_schema() as schema');
        expect(rows[0]?.schema).toBe(schema);
      } finally {
        await client.end();
      }
    }
  });

  it("keeps a service's transaction on its own connection when another service's transaction is running around it", async () => {
    // What the in-process transport does: a consumer woken from inside a producer's transaction runs, on a
    // later tick, in that transaction's async context.
    for (const [outer, outerOrm] of orms) {
      for (const [inner, innerOrm] of orms) {
        if (inner === outer) continue;
        const innerDb = Sql.of(innerOrm);
        const seen = await Sql.of(outerOrm).transaction(async () => {
          const nested = await innerDb.transaction(currentSchema);
          const later = await new Promise<string | undefined>((resolve, reject) =>
            setImmediate(() => innerDb.transaction(currentSchema).then((found) => resolve(found?.schema), reject)),
          );
          const pooled = await currentSchema(innerDb);
          const locked = await withAdvisoryLock(innerOrm, `${inner}:pinning`, () => currentSchema(innerDb));
          return [nested?.schema, later, pooled?.schema, locked?.schema];
        });
        expect(seen, `${inner} inside ${outer}`).toEqual([inner, inner, inner, inner]);
      }
    }
  });
});
