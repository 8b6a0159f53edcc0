#!/usr/bin/env node
// Side by side, in one run: an empty fastify route and the all-in-one on the same machine, each HTTP figure
// printed as a share of the empty route so the figures compare across machines. Not a test.
//
//   npm run bench -- ratios
//
// Needs DATABASE_URL (an admin URL; a fresh database is created and dropped), NATS_URL and REDIS_URL.
// Optional env: DURATION (s per figure, default 5), CONNECTIONS (default 50), CPU_PROF_DIR (runs the all-in-one
// with --cpu-prof writing there; read the profile with bench/profile-top.mjs), ONLY (comma-separated row keys:
// me,task,tree,create,tree500,webhooks; the others print as skipped), WEBHOOK_COUNT (reminders due at one instant, default 1000), SKIP_SQL=1 (no SQL floor), APP_MAIN (another build's
// apps/all-in-one/dist/main.js, e.g. main's, to compare a before and an after under the same conditions),
// IN_PROCESS=1 (the all-in-one without NATS and Redis, in-process events and counters, as the issue measured),
// SCALE=1 (100k tasks and 1M deliveries of other owners seeded first, bench/scale-seed.mjs),
// DB_CPU=1 (also the CPU per request of the PostgreSQL backends of the scratch database; PostgreSQL on this machine).
// Both servers run as child processes so that autocannon does not share their event loop; the empty route
// uses the very fastify the services resolve. The SQL floor is bench/sql-floor.mjs; the webhook row and its
// floor (a bare undici loop to the same receiver) are bench/webhook-ratio.mjs.
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort, startChild, stopChild } from './children.mjs';
import { cpuMsOf, dbBackendsCpuMs } from './proc-cpu.mjs';

const root = new URL('../', import.meta.url);
const serviceRequire = createRequire(new URL('services/task/package.json', root));

// --- child mode: the empty route --------------------------------------------------------------------------
if (process.argv[2] === '--empty-route') {
  const { default: Fastify } = await import(pathToFileURL(serviceRequire.resolve('fastify')).href);
  const app = Fastify({ logger: false });
  app.get('/empty', async () => ({}));
  await app.listen({ port: Number(process.argv[3]), host: '127.0.0.1' });
  process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
} else {
  await main();
}

/**
 * `measure` plus the server's CPU time per answered request: on a shared machine req/s moves with whatever
 * else runs, while the CPU a request costs the server process moves much less.
 */
async function measureWithCpu(measure, pid, title, options, dbCpuMs) {
  const before = cpuMsOf(pid);
  const dbBefore = dbCpuMs ? await dbCpuMs() : null;
  const row = await measure(title, options);
  const after = cpuMsOf(pid);
  const dbAfter = dbCpuMs ? await dbCpuMs() : null;
  const requests = row.requests_per_s * (options.duration ?? Number(process.env.DURATION));
  const perRequest = (from, to) =>
    from === null || to === null || requests === 0 ? null : Math.round(((to - from) * 1000) / requests);
  row.server_cpu_us_per_request = perRequest(before, after);
  // PostgreSQL shares the cores: what its backends of the scratch database spent per request (DB_CPU=1).
  if (dbCpuMs) row.db_cpu_us_per_request = perRequest(dbBefore, dbAfter);
  return row;
}

/** A copy of `env` without `keys`. */
function withoutKeys(keys, env) {
  const copy = { ...env };
  for (const key of keys) delete copy[key];
  return copy;
}

/** Samples the CPU of the scratch database's backends through one connection of its own (DB_CPU=1). */
async function dbCpuSampler(db) {
  const testkitRequire = createRequire(new URL('../packages/testkit/package.json', import.meta.url));
  const { default: pg } = await import(pathToFileURL(testkitRequire.resolve('pg')).href);
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  return { sample: () => dbBackendsCpuMs(client, db.name), close: () => client.end() };
}

/** The table line of the webhook row: deliveries/s, lags, exactly-once check and the share of the bare loop. */
function webhookLine(hooks) {
  const title = `${Number(process.env.WEBHOOK_COUNT ?? 1000).toLocaleString('en')} reminder webhooks due at one instant`;
  if (!hooks) return `| ${title} | skipped | skipped | skipped | skipped | skipped |`;
  const { figure: f, bare } = hooks;
  const invalid = f.valid
    ? ''
    : ` (INVALID: ${f.armed_before_due} armed before due, ${f.arrivals} arrivals, ${f.unique_event_ids} event ids)`;
  return (
    `| ${title} | ${f.deliveries_per_s.toLocaleString('en')} deliveries/s | lag first ${f.first_lag_ms} ms, ` +
    `p50 ${f.p50_lag_ms} ms, p99 ${f.p99_lag_ms} ms | ${(f.deliveries_per_s / bare.deliveries_per_s).toFixed(3)} ` +
    `of a bare undici loop (${bare.deliveries_per_s.toLocaleString('en')}/s at ${bare.concurrency} in flight)` +
    `${invalid} | ${f.server_cpu_us_per_delivery} µs per delivery | each once: ${f.duplicates === 0 && f.arrivals === f.unique_event_ids} |`
  );
}

async function main() {
  process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
  process.env.DURATION ??= '5';
  // The testkit's infra and host-env modules by file: its index also loads vitest helpers, which refuse to
  // load outside vitest.
  const testkit = (file) => import(new URL(`packages/testkit/dist/${file}`, root).href);
  const { createTestDatabase } = await testkit('infra.js');
  const { testHostEnv } = await testkit('host-env.js');
  const [emptyPort, appPort] = [await freePort(), await freePort()];
  process.env.BASE_URL = `http://127.0.0.1:${appPort}`;
  // lib.mjs reads BASE_URL and DURATION when loaded, so it is loaded after they are set.
  const { benchUser, client, measure, pool, saveResults, CONNECTIONS, DURATION } = await import('./lib.mjs');

  // Other work on the machine skews every figure, the floor included, and not in the same proportion.
  const loadBefore = loadavg()[0];
  if (loadBefore > 0.5) console.warn(`load average ${loadBefore.toFixed(2)} before the run: the machine is not quiet`);
  const children = [];
  let receiver; // the webhook receiver's process, stopped with the others
  const db = await createTestDatabase();
  try {
    const { sqlFloors } = await import('./sql-floor.mjs');
    const webhooks = await import('./webhook-ratio.mjs');
    receiver = await webhooks.startReceiver({ startChild, freePort });
    /**
     * The webhook figure, then its floor with bodies of the size the all-in-one sent. Each is measured a second
     * time, as the HTTP rows are measured after a warm-up: a fresh process runs its firing, sending and recording
     * code for the first time in the first burst, unoptimized (bench/README.md, "Fifth session"). The first
     * burst and the first loop are kept in the JSON (`first_burst`) and printed below the table.
     */
    const webhookRow = async (api, dbUrl, appPid, createsPerS, dbCpuMs) => {
      const count = Number(process.env.WEBHOOK_COUNT ?? 1000);
      const concurrency = webhooks.webhookConcurrency(process.env);
      const burst = async (which) => {
        console.error(`seeding ${count} reminders due at one instant (${which} burst) ...`);
        const figure = await webhooks.measureReminderWebhooks({
          api,
          dbUrl,
          receiver,
          appPid,
          count,
          createsPerS,
          dbCpuMs,
        });
        console.log(JSON.stringify(figure));
        const bare = await webhooks.measureBareLoop({ receiver, count, concurrency, bodyBytes: figure.body_bytes });
        console.log(JSON.stringify(bare));
        return { figure, bare };
      };
      const first = await burst('first');
      return { ...(await burst('second')), first_burst: first };
    };
    const skipped = { per_s: 0, p99_ms: 0 };
    const sql = process.env.SKIP_SQL
      ? { read: skipped, write: skipped }
      : await sqlFloors(db.url, { seconds: DURATION, concurrency: 50 });
    console.log(JSON.stringify({ title: 'SQL floor', ...sql }));
    console.error(`empty route on :${emptyPort}, all-in-one on :${appPort}, database ${db.name}`);
    children.push(
      await startChild(
        'empty route',
        [fileURLToPath(import.meta.url), '--empty-route', String(emptyPort)],
        process.env,
        `http://127.0.0.1:${emptyPort}/empty`,
      ),
    );
    const unlimited = '1000000000';
    children.push(
      await startChild(
        'all-in-one',
        [
          ...(process.env.CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROF_DIR}`] : []),
          process.env.APP_MAIN ?? fileURLToPath(new URL('apps/all-in-one/dist/main.js', root)),
        ],
        // IN_PROCESS=1: the issue's own configuration, the all-in-one as `npm start` runs it (events and
        // rate-limit counters in-process instead of on NATS and Redis).
        withoutKeys(process.env.IN_PROCESS ? ['NATS_URL', 'REDIS_URL'] : [], {
          ...process.env,
          ...testHostEnv(db.url, `bench-${Date.now()}`),
          PORT: String(appPort),
          LOG_LEVEL: 'warn',
          SHUTDOWN_DRAIN_MS: '0',
          WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', // the receiver is on loopback
          RATE_LIMIT_PER_MINUTE: unlimited,
          RATE_LIMIT_PER_HOUR: unlimited,
          RATE_LIMIT_BURST: unlimited,
        }),
        `http://127.0.0.1:${appPort}/readyz`,
      ),
    );

    // SCALE=1: 100k tasks and 1M deliveries of other owners in the tables before anything is measured.
    if (process.env.SCALE) {
      console.error('seeding 100k tasks and 1M deliveries ...');
      console.log(JSON.stringify(await (await import('./scale-seed.mjs')).seedAtScale(db.url)));
    }
    const { token } = await benchUser('ratios');
    const api = client(token);
    const create = (title, parent = null) =>
      api('POST', '/service/tasks', { title, duration_min: 15, parent_task_id: parent, tags: ['bench'] });
    console.error('seeding a tree of 101 tasks ...');
    const seedStarted = performance.now();
    const treeRoot = await create('ratios tree root');
    const children10 = await pool([...Array(10).keys()], 10, (i) => create(`child ${i}`, treeRoot.id));
    await pool([...Array(90).keys()], 20, (i) => create(`grandchild ${i}`, children10[i % 10].id));
    const tree = await api('GET', `/service/tasks/${treeRoot.id}/tree`);
    const createsPerS = (101 * 1000) / (performance.now() - seedStarted);
    if (tree.rolled_up_duration_min !== 101 * 15) throw new Error('seeded tree is not 101 tasks');
    const one = await create('ratios single');
    // The issue's second tree: 500 tasks (root, 20 children, 479 grandchildren), read at 10 connections.
    const only = process.env.ONLY ? new Set(process.env.ONLY.split(',')) : undefined;
    let bigRoot = null;
    if (!only || only.has('tree500')) {
      console.error('seeding a tree of 500 tasks ...');
      bigRoot = await create('ratios tree of 500');
      const children20 = await pool([...Array(20).keys()], 10, (i) => create(`child ${i}`, bigRoot.id));
      await pool([...Array(479).keys()], 20, (i) => create(`grandchild ${i}`, children20[i % 20].id));
      const big = await api('GET', `/service/tasks/${bigRoot.id}/tree`);
      if (big.rolled_up_duration_min !== 500 * 15) throw new Error('seeded tree is not 500 tasks');
    }

    // A short warm-up of each target so JIT and pools are not part of the first figure.
    const warm = { connections: 10 };
    const emptyUrl = `http://127.0.0.1:${emptyPort}`;
    await measure('warm-up empty', { ...warm, url: emptyUrl, mount: '', paths: ['/empty'], duration: 1 });
    await measure('warm-up task', { ...warm, paths: [`/service/tasks/${one.id}`], token, duration: 1 });

    const [emptyChild, appChild] = children;
    const floor = await measureWithCpu(measure, emptyChild.pid, 'empty fastify route', {
      url: emptyUrl,
      mount: '',
      paths: ['/empty'],
    });
    const dbCpu = process.env.DB_CPU ? await dbCpuSampler(db) : null;
    const row = async (key, title, options) =>
      !only || only.has(key)
        ? measureWithCpu(measure, appChild.pid, title, options, dbCpu?.sample)
        : { title, connections: CONNECTIONS, requests_per_s: 0, p99_ms: 0, non_2xx: 0, errors: 0, skipped: true };
    const rows = [
      await row('me', 'GET /auth/me', { paths: ['/auth/me'], token }),
      await row('task', 'GET /service/tasks/{id}', { paths: [`/service/tasks/${one.id}`], token }),
      await row('tree', 'GET /service/tasks/{id}/tree (101 tasks)', {
        paths: [`/service/tasks/${treeRoot.id}/tree`],
        token,
      }),
      await row('create', 'POST /service/tasks', {
        method: 'POST',
        paths: ['/service/tasks'],
        body: JSON.stringify({ title: 'ratios create', duration_min: 10 }),
        token,
      }),
      await row('tree500', 'GET /service/tasks/{id}/tree (500 tasks, 10 connections)', {
        paths: [`/service/tasks/${bigRoot?.id}/tree`],
        token,
        connections: 10,
      }),
    ];
    // Relay lag under the create row (bench/relay-lag.mjs), only with RELAY_LAG=1.
    if (process.env.RELAY_LAG)
      console.log(JSON.stringify(await (await import('./relay-lag.mjs')).relayLag(db.url, appChild.pid, rows[3])));
    const hooks =
      !only || only.has('webhooks') ? await webhookRow(api, db.url, appChild.pid, createsPerS, dbCpu?.sample) : null;
    await dbCpu?.close();

    // The empty route's CPU per request over this row's: the share the row would reach if CPU alone bound it.
    const cpuShare = (row) =>
      floor.server_cpu_us_per_request && row.server_cpu_us_per_request
        ? (floor.server_cpu_us_per_request / row.server_cpu_us_per_request).toFixed(3)
        : 'n/a';
    const ofFloor = (row, floor) =>
      row.skipped || floor.per_s === 0 ? 'skipped' : (row.requests_per_s / floor.per_s).toFixed(3);
    const share = (row) => (floor.requests_per_s > 0 ? row.requests_per_s / floor.requests_per_s : 0);
    const lines = [
      `ratios: ${DURATION} s per figure at ${floor.connections} connections, ${new Date().toISOString()}, ` +
        `${cpus().length} cores, node ${process.version}, 1-min load average ${loadBefore.toFixed(2)} before and ` +
        `${loadavg()[0].toFixed(2)} after (the run itself loads about 2), ` +
        `${process.env.IN_PROCESS ? 'in-process events and counters' : 'NATS JetStream and Redis'}` +
        `${process.env.SCALE ? ', 100k tasks and 1M deliveries seeded' : ''}`,
      '',
      `| request | req/s | p99 | share of the empty route (${floor.requests_per_s.toLocaleString('en')} req/s) | ` +
        `server CPU per request (empty route: ${floor.server_cpu_us_per_request} µs) | CPU share |`,
      '|---|---|---|---|---|---|',
      ...rows.map((r) =>
        r.skipped
          ? `| \`${r.title}\` | skipped | skipped | skipped | skipped | skipped |`
          : `| \`${r.title}\` | ${r.requests_per_s.toLocaleString('en')} | ${r.p99_ms} ms | ${share(r).toFixed(3)}${
              r.non_2xx > 0 || r.errors > 0 ? ` (INVALID: ${r.non_2xx} non-2xx, ${r.errors} errors)` : ''
            } | ${r.server_cpu_us_per_request} µs | ${cpuShare(r)} |`,
      ),
      ...rows
        .filter((r) => r.db_cpu_us_per_request != null)
        .map((r) => `PostgreSQL CPU per request, \`${r.title}\`: ${r.db_cpu_us_per_request} µs`),
      webhookLine(hooks),
      ...(hooks ? [`first burst of the fresh process: ${webhookLine(hooks.first_burst)}`] : []),
      '',
      '| SQL floor (raw `pg`, 50 clients) | statements/s | p99 | the request req/s as a share of this floor |',
      '|---|---|---|---|',
      `| primary-key read of one row | ${sql.read.per_s.toLocaleString('en')} | ${sql.read.p99_ms} ms | ` +
        `GET /service/tasks/{id}: ${ofFloor(rows[1], sql.read)} |`,
      `| transaction: one row + one outbox row | ${sql.write.per_s.toLocaleString('en')} | ${sql.write.p99_ms} ms | ` +
        `POST /service/tasks: ${ofFloor(rows[3], sql.write)} |`,
    ];
    console.log(`\n${lines.join('\n')}\n`);
    saveResults('ratios', {
      floor,
      sql,
      rows: rows.map((r) => ({ ...r, share_of_empty_route: share(r) })),
      webhooks: hooks,
    });
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    if (receiver) await stopChild(receiver.child);
    await db.drop();
  }
}
