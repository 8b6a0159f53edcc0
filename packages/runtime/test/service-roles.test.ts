import { serviceDatabaseUrl } from '@routinely/db';
import { createTestDatabase, quietLogger } from '@routinely/testkit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.drop());

async function query(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('one database role per service', () => {
  it('owns its schema and cannot read another service schema', async () => {
    const secret = 'role-test-secret-long-enough-0123456789';
    const alpha = await serviceDatabaseUrl(db.url, 'alpha', secret, quietLogger());
    const beta = await serviceDatabaseUrl(db.url, 'beta', secret, quietLogger());
    expect(new URL(alpha).username).toBe('routinely_alpha');
    await query(alpha, 'create table alpha.secrets (id int primary key); insert into alpha.secrets values (1)');
    await query(beta, 'create table beta.things (id int primary key)');
    expect((await query(alpha, 'select count(*)::int as n from alpha.secrets')).rows[0].n).toBe(1);
    await expect(query(beta, 'select * from alpha.secrets')).rejects.toThrow(/permission denied/);
    await expect(query(beta, 'create table alpha.intruder (id int)')).rejects.toThrow(/permission denied/);
    // Idempotent on the next start.
    expect(await serviceDatabaseUrl(db.url, 'alpha', secret, quietLogger())).toBe(alpha);
  });

  it('lets hosts provision the same role at the same time (roles are cluster-wide)', async () => {
    const secret = 'role-test-secret-long-enough-0123456789';
    const others = await Promise.all([1, 2, 3].map(() => createTestDatabase()));
    try {
      const urls = await Promise.all(
        [db, ...others].flatMap((d) => [0, 1].map(() => serviceDatabaseUrl(d.url, 'gamma', secret, quietLogger()))),
      );
      expect(new Set(urls.map((u) => new URL(u).username))).toEqual(new Set(['routinely_gamma']));
    } finally {
      await Promise.all(others.map((d) => d.drop()));
    }
  });
});
