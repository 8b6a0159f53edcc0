// A process that starts the embedded PostgreSQL as the all-in-one does (packages/db's build output), writes one
// row, says which rows it holds and waits to be killed: embedded-postgres-restart.e2e.test.ts kills it, and its
// process group, the hard way.
import { createRequire } from 'node:module';

const dbPackage = new URL('../../packages/db/', import.meta.url);
const [dataDir, port, round] = process.argv.slice(2);
const say = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);
try {
  const { startEmbeddedPostgres } = await import(new URL('dist/embedded.js', dbPackage).href);
  const pg = createRequire(new URL('package.json', dbPackage))('pg');
  const handle = await startEmbeddedPostgres({ dataDir, port: Number(port) });
  const client = new pg.Client({ connectionString: handle.url });
  await client.connect();
  await client.query('create table if not exists rounds (round int primary key)');
  await client.query('insert into rounds values ($1)', [Number(round)]);
  const { rows } = await client.query('select array_agg(round order by round) as rounds from rounds');
  say({ started: true, rounds: rows[0].rounds });
} catch (error) {
  say({ started: false, error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}
setInterval(() => {}, 1 << 30);
