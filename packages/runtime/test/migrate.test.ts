import { applyMigrations, Migration, openOrm, type ServiceDbConfig } from '@routinely/db';
import { createTestDatabase, quietLogger } from '@routinely/testkit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkNoPendingMigrations, migrateServices, type ServiceModule } from '../src/index.js';

class CreateWidgets extends Migration {
  override async up(): Promise<void> {
    // Slow enough that replicas starting together overlap inside it without the lock.
    this.addSql('select pg_sleep(0.2)');
    this.addSql('create table widgets (id int primary key)');
  }
}

const dbConfig = (schema: string): ServiceDbConfig => ({
  schema,
  entities: [],
  migrations: [{ name: 'Migration20260101000000', class: CreateWidgets }],
});

const secrets = { INTERNAL_AUTH_SECRET: 'migrate-test-secret-long-enough-0123', ENCRYPTION_KEY: 'a'.repeat(43) };

let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.drop());

async function count(sql: string): Promise<number> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return Number((await client.query(sql)).rows[0].n);
  } finally {
    await client.end();
  }
}

describe('migrations', () => {
  it('are applied once when replicas start together on the same schema', async () => {
    const config = dbConfig('racing');
    const orms = await Promise.all([1, 2, 3, 4].map(() => openOrm(db.url, config, { migrate: false })));
    try {
      const applied = await Promise.all(orms.map((orm) => applyMigrations(orm, db.url)));
      expect(applied.flat()).toEqual(['Migration20260101000000']);
      expect(await count('select count(*) as n from racing.mikro_orm_migrations')).toBe(1);
    } finally {
      await Promise.all(orms.map((orm) => orm.close()));
    }
  });

  it('are applied by the migrate entry body, and a host that skips them refuses a schema behind its code', async () => {
    const config = dbConfig('skipping');
    const module = { name: 'calendar', dbConfig: config } as ServiceModule;
    const before = await openOrm(db.url, config, { migrate: false });
    try {
      await expect(checkNoPendingMigrations('calendar', before)).rejects.toThrow(
        /1 migration\(s\) not applied \(Migration20260101000000\) and MIGRATE_ON_START=false/,
      );
    } finally {
      await before.close();
    }
    const applied = await migrateServices({
      modules: [module],
      env: { DATABASE_URL: db.url, ...secrets },
      logger: quietLogger(),
    });
    expect(applied).toEqual({ calendar: ['Migration20260101000000'] });
    // Under the service's own role, as a host would connect.
    expect(await count('select count(*) as n from skipping.widgets')).toBe(0);
    const after = await openOrm(db.url, config, { migrate: false });
    try {
      await expect(checkNoPendingMigrations('calendar', after)).resolves.toBeUndefined();
    } finally {
      await after.close();
    }
    expect(
      await migrateServices({ modules: [module], env: { DATABASE_URL: db.url, ...secrets }, logger: quietLogger() }),
    ).toEqual({ calendar: [] });
  });

  it('need DATABASE_URL and the secrets', async () => {
    const module = { name: 'calendar', dbConfig: dbConfig('unused') } as ServiceModule;
    await expect(migrateServices({ modules: [module], env: secrets, logger: quietLogger() })).rejects.toThrow(
      /DATABASE_URL must be set/,
    );
    await expect(
      migrateServices({ modules: [module], env: { DATABASE_URL: db.url }, logger: quietLogger() }),
    ).rejects.toThrow(/INTERNAL_AUTH_SECRET and ENCRYPTION_KEY must be set/);
  });
});
