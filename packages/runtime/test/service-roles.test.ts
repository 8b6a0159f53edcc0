import { createTestDatabase, quietLogger } from '@routinely/testkit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceDatabaseUrl } from '../src/index.js';

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
});
