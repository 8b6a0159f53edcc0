import { randomBytes } from 'node:crypto';
import { openOrm, type ServiceDbConfig, schemaDrift } from '@routinely/db';
import { createLogger, type Logger } from '@routinely/platform';
import { Redis } from 'ioredis';
import pg from 'pg';

export const quietLogger = (): Logger => createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

export function requireEnv(name: 'DATABASE_URL' | 'REDIS_URL' | 'NATS_URL'): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (the testkit global setup provides it)`);
  return value;
}

export const uniqueName = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;

/** A fresh, empty database on the test server; `drop()` removes it. */
export async function createTestDatabase(): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const adminUrl = requireEnv('DATABASE_URL');
  const name = uniqueName('t');
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

export function createTestRedis(): Redis {
  return new Redis(requireEnv('REDIS_URL'), { maxRetriesPerRequest: 3, lazyConnect: false });
}

/** The SQL that migrations still lack for the entities, on a fresh database ('' when they match). */
export async function schemaDriftOnFreshDatabase(dbConfig: ServiceDbConfig): Promise<string> {
  const db = await createTestDatabase();
  const orm = await openOrm(db.url, dbConfig);
  try {
    return await schemaDrift(orm);
  } finally {
    await orm.close();
    await db.drop();
  }
}
