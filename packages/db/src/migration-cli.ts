#!/usr/bin/env node
// Writes the next migration of a service: applies its committed migrations to a scratch database, diffs
// the entities against the result, and saves the difference as src/db/migrations/Migration<stamp>.ts.
// Usage (after a build): node packages/db/dist/migration-cli.js services/<svc> [DATABASE_URL]
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { openOrm, type ServiceDbConfig, schemaDrift } from './orm.js';

const [serviceDir, adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'] =
  process.argv.slice(2);
if (!serviceDir) {
  console.error('usage: migration-cli <service dir> [admin database url]');
  process.exit(2);
}
const module = (await import(pathToFileURL(resolve(serviceDir, 'dist/db/config.js')).href)) as {
  dbConfig: ServiceDbConfig;
};
const scratch = `migrations_${Date.now()}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`CREATE DATABASE "${scratch}"`);
const url = new URL(adminUrl);
url.pathname = `/${scratch}`;
try {
  const orm = await openOrm(url.toString(), module.dbConfig);
  const diff = await schemaDrift(orm);
  await orm.close();
  if (!diff) {
    console.log('entities match the migrations; nothing to write');
  } else {
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const name = `Migration${stamp}`;
    const statements = diff
      .split(/;\n/)
      .map((s) => s.trim().replace(/;$/, ''))
      .filter((s) => s && !/^set names/i.test(s) && !/^create schema/i.test(s)); // the host creates the schema for the service's role
    const body = statements.map((s) => `    this.addSql(${JSON.stringify(s)});`).join('\n');
    const dir = resolve(serviceDir, 'src/db/migrations');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, `${name}.ts`),
      `import { Migration } from '@routinely/db';\n\nexport class ${name} extends Migration {\n  override async up(): Promise<void> {\n${body}\n  }\n}\n`,
    );
    console.log(`wrote ${join(dir, `${name}.ts`)}; add it to src/db/migrations/index.ts`);
  }
} finally {
  await admin.query(`DROP DATABASE IF EXISTS "${scratch}" WITH (FORCE)`);
  await admin.end();
}
