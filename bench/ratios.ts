// Side by side, in one run: an empty fastify route and one or more builds of the all-in-one on the same
// machine, each HTTP figure also printed as a share of the empty route so the figures compare across machines.
// Not a test. Usage and options: bench/README.md.
import type { ChildProcess } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { testHostEnv } from '@routinely/testkit/host-env';
import { createTestDatabase } from '@routinely/testkit/infra';
import Fastify from 'fastify';
import pg from 'pg';
import {
  type Api,
  benchUser,
  CONNECTIONS,
  client,
  DURATION,
  type MeasureOptions,
  measure,
  pool,
  saveResults,
} from './lib.ts';
import { cpuMsOf, dbBackendsCpuMs, freePort, startChild, stopChild } from './processes.ts';
import { type BuildFigures, type HttpFigure, ratiosReport, type WebhookPair } from './ratios-report.ts';
import { sqlFloors } from './sql-floor.ts';
import * as webhooks from './webhook-ratio.ts';

const root = new URL('../', import.meta.url);

/** One all-in-one build under measurement, with its own scratch database, user and seeded tasks. */
interface Build {
  label: string;
  main: string;
  env: Record<string, string>;
  db: { url: string; name: string; drop: () => Promise<void> };
  url: string;
  child?: ChildProcess;
  token?: string;
  api?: Api;
  paths?: { task: string; tree: string; tree500: string };
  dbCpu?: { sample: () => Promise<number>; close: () => Promise<unknown> };
}

/** `BUILDS`: `label=main.js[?KEY=value&...]` separated by spaces; paths relative to the checkout. */
function parseBuilds(spec: string | undefined): { label: string; main: string; env: Record<string, string> }[] {
  const own = fileURLToPath(new URL('apps/all-in-one/dist/main.js', root));
  if (!spec) return [{ label: 'this', main: own, env: {} }];
  return spec
    .split(/\s+/)
    .filter(Boolean)
    .map((item) => {
      const [label = '', rest = ''] = item.split(/=(.*)/s);
      const [path = '', query = ''] = rest.split('?');
      return {
        label,
        main: path ? fileURLToPath(new URL(path, root)) : own,
        env: Object.fromEntries(new URLSearchParams(query)),
      };
    });
}

const ROWS: { key: string; title: string; options: (b: Build) => MeasureOptions }[] = [
  { key: 'me', title: 'GET /auth/me', options: () => ({ paths: ['/auth/me'] }) },
  { key: 'task', title: 'GET /service/tasks/{id}', options: (b) => ({ paths: [b.paths?.task ?? ''] }) },
  {
    key: 'tree',
    title: 'GET /service/tasks/{id}/tree (101 tasks)',
    options: (b) => ({ paths: [b.paths?.tree ?? ''] }),
  },
  {
    key: 'create',
    title: 'POST /service/tasks',
    options: () => ({
      method: 'POST',
      paths: ['/service/tasks'],
      body: JSON.stringify({ title: 'ratios create', duration_min: 10 }),
    }),
  },
  {
    key: 'tree500',
    title: 'GET /service/tasks/{id}/tree (500 tasks, 10 connections)',
    options: (b) => ({ paths: [b.paths?.tree500 ?? ''], connections: 10 }),
  },
];

/** `measure` plus the CPU time process `pid` (and the build's database backends) spent per answered request. */
async function measureWithCpu(title: string, options: MeasureOptions, pid: number | undefined, build?: Build) {
  const before = cpuMsOf(pid);
  const dbBefore = build?.dbCpu ? await build.dbCpu.sample() : null;
  const row = await measure(title, options);
  const after = cpuMsOf(pid);
  const dbAfter = build?.dbCpu ? await build.dbCpu.sample() : null;
  const requests = row.requests_per_s * (options.duration ?? DURATION);
  const perRequest = (from: number | null, to: number | null) =>
    from === null || to === null || requests === 0 ? null : Math.round(((to - from) * 1000) / requests);
  const figure: HttpFigure = { ...row, server_cpu_us_per_request: perRequest(before, after) };
  if (build?.dbCpu) figure.db_cpu_us_per_request = perRequest(dbBefore, dbAfter);
  return figure;
}

/** Registers the bench user and seeds one task, a tree of 101 (root, 10, 90) and, unless left out, one of 500. */
async function seed(build: Build, only: Set<string> | undefined) {
  const { token } = await benchUser(`ratios-${build.label}`, build.url);
  const api = client(token, build.url);
  const create = (title: string, parent: string | null = null) =>
    api<{ id: string }>('POST', '/service/tasks', { title, duration_min: 15, parent_task_id: parent, tags: ['bench'] });
  const tree = async (size: number, fanOut: number) => {
    const top = await create(`ratios tree of ${size}`);
    const middle = await pool([...Array(fanOut).keys()], 10, (i) => create(`child ${i}`, top.id));
    await pool([...Array(size - 1 - fanOut).keys()], 20, (i) =>
      create(`grandchild ${i}`, middle[i % fanOut]?.id ?? null),
    );
    const answer = await api<{ rolled_up_duration_min: number }>('GET', `/service/tasks/${top.id}/tree`);
    if (answer.rolled_up_duration_min !== size * 15) throw new Error(`seeded tree is not ${size} tasks`);
    return top.id;
  };
  console.error(`${build.label}: seeding a tree of 101 tasks ...`);
  const tree101 = await tree(101, 10);
  const one = await create('ratios single');
  const tree500 = !only || only.has('tree500') ? await tree(500, 20) : '';
  Object.assign(build, {
    token,
    api,
    paths: {
      task: `/service/tasks/${one.id}`,
      tree: `/service/tasks/${tree101}/tree`,
      tree500: `/service/tasks/${tree500}/tree`,
    },
  });
}

/** One burst of the webhook row on `build`: the figure, then its floor with bodies of the size it sent. */
async function webhookBurst(build: Build, receiver: webhooks.Receiver, which: string): Promise<WebhookPair> {
  const count = Number(process.env.WEBHOOK_COUNT ?? 1000);
  const concurrency = webhooks.webhookConcurrency(process.env);
  console.error(`${build.label}: ${count} reminders due at one instant (${which} burst) ...`);
  const figure = await webhooks.measureReminderWebhooks({
    api: build.api as Api,
    dbUrl: build.db.url,
    receiver,
    appPid: build.child?.pid,
    count,
    dbCpuMs: build.dbCpu?.sample,
  });
  console.log(JSON.stringify(figure));
  const bare = await webhooks.measureBareLoop({ receiver, count, concurrency, bodyBytes: figure.body_bytes });
  console.log(JSON.stringify(bare));
  return { figure, bare };
}

/**
 * The order the builds take their turns in `round`: reversed every other round, so a noisy neighbour spreads over
 * the builds instead of landing on one.
 */
function turnOrder(builds: readonly Build[], round: number): number[] {
  const order = builds.map((_, i) => i);
  return round % 2 === 1 ? order.reverse() : order;
}

async function main() {
  process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
  const only = process.env.ONLY ? new Set(process.env.ONLY.split(',')) : undefined;
  const rounds = Number(process.env.ROUNDS ?? 1);
  const loadBefore = loadavg()[0] ?? 0;
  if (loadBefore > 0.5) console.warn(`load average ${loadBefore.toFixed(2)} before the run: the machine is not quiet`);
  const builds: Build[] = [];
  const children: ChildProcess[] = [];
  let receiver: webhooks.Receiver | undefined;
  try {
    for (const spec of parseBuilds(process.env.BUILDS)) {
      builds.push({ ...spec, db: await createTestDatabase(), url: `http://127.0.0.1:${await freePort()}` });
    }
    const first = builds[0] as Build;
    const skipped = { per_s: 0, p99_ms: 0 };
    const sql = process.env.SKIP_SQL
      ? { read: skipped, write: skipped }
      : await sqlFloors(first.db.url, { seconds: DURATION, concurrency: 50 });
    console.log(JSON.stringify({ title: 'SQL floor', ...sql }));
    if (!only || only.has('webhooks')) receiver = await webhooks.startReceiver();
    const emptyUrl = `http://127.0.0.1:${await freePort()}`;
    const empty = await startChild(
      'empty route',
      [fileURLToPath(import.meta.url), '--empty-route', new URL(emptyUrl).port],
      process.env,
      `${emptyUrl}/empty`,
    );
    children.push(empty);
    for (const build of builds) {
      const unlimited = '1000000000';
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        ...testHostEnv(build.db.url, `bench_${build.label}_${Date.now()}`),
        PORT: new URL(build.url).port,
        LOG_LEVEL: 'warn',
        SHUTDOWN_DRAIN_MS: '0',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', // the receiver is on loopback
        RATE_LIMIT_PER_MINUTE: unlimited,
        RATE_LIMIT_PER_HOUR: unlimited,
        RATE_LIMIT_BURST: unlimited,
        ...build.env,
      };
      // IN_PROCESS=1: events and rate-limit counters in-process, as `npm start` runs the all-in-one.
      if (process.env.IN_PROCESS) for (const key of ['NATS_URL', 'REDIS_URL'] as const) delete env[key];
      build.child = await startChild(`all-in-one ${build.label}`, [build.main], env, `${build.url}/readyz`);
      children.push(build.child);
      if (process.env.SCALE) {
        console.error(`${build.label}: seeding 100k tasks and 1M deliveries ...`);
        console.log(JSON.stringify(await (await import('./scale-seed.ts')).seedAtScale(build.db.url)));
      }
      await seed(build, only);
      if (process.env.DB_CPU) {
        const db = new pg.Client({ connectionString: build.db.url });
        await db.connect();
        build.dbCpu = { sample: () => dbBackendsCpuMs(db, build.db.name), close: () => db.end() };
      }
    }
    // A short warm-up of each target so JIT and pools are not part of the first figure.
    const warm = { connections: 10, duration: 1 };
    await measure('warm-up empty', { ...warm, url: emptyUrl, mount: '', paths: ['/empty'] });
    for (const b of builds) {
      await measure(`warm-up ${b.label}`, { ...warm, url: b.url, paths: [b.paths?.task ?? ''], token: b.token ?? '' });
    }
    const floors: HttpFigure[] = [];
    const figures: BuildFigures[] = builds.map((b) => ({ label: b.label, rows: {} }));
    // Each round measures every build once per row, in turns.
    for (let round = 0; round < rounds; round++) {
      floors.push(
        await measureWithCpu('empty fastify route', { url: emptyUrl, mount: '', paths: ['/empty'] }, empty.pid),
      );
      for (const row of ROWS.filter((r) => !only || only.has(r.key))) {
        for (const i of turnOrder(builds, round)) {
          const b = builds[i] as Build;
          const options = { ...row.options(b), url: b.url, token: b.token ?? '' };
          const figure = await measureWithCpu(`${row.title} [${b.label}]`, options, b.child?.pid, b);
          const byRow = (figures[i] as BuildFigures).rows;
          byRow[row.key] = [...(byRow[row.key] ?? []), figure];
        }
      }
    }
    if (receiver) {
      // A fresh process runs its firing, sending and recording code for the first time in its first burst,
      // unoptimized: that burst is printed apart, the next ones (one per build per round, in turns) count.
      for (const [i, b] of builds.entries())
        (figures[i] as BuildFigures).firstBurst = await webhookBurst(b, receiver, 'first');
      for (let round = 0; round < rounds; round++) {
        for (const i of turnOrder(builds, round)) {
          const figure = figures[i] as BuildFigures;
          figure.webhooks = [
            ...(figure.webhooks ?? []),
            await webhookBurst(builds[i] as Build, receiver, `round ${round + 1}`),
          ];
        }
      }
    }
    const header =
      `ratios: ${DURATION} s per figure at ${CONNECTIONS} connections, ${rounds} round(s), ${new Date().toISOString()}, ` +
      `${cpus().length} cores, node ${process.version}, 1-min load average ${loadBefore.toFixed(2)} before and ` +
      `${(loadavg()[0] ?? 0).toFixed(2)} after (the run itself loads about 2), ` +
      `${process.env.IN_PROCESS ? 'in-process events and counters' : 'NATS JetStream and Redis'}` +
      `${process.env.SCALE ? ', 100k tasks and 1M deliveries seeded' : ''}`;
    console.log(`\n${ratiosReport({ header, rows: ROWS, floors, figures, sql })}\n`);
    saveResults('ratios', {
      builds: builds.map(({ label, main, env }) => ({ label, main, env })),
      floors,
      figures,
      sql,
    });
  } finally {
    for (const b of builds) await b.dbCpu?.close();
    for (const child of children.reverse()) await stopChild(child);
    if (receiver) await stopChild(receiver.child);
    for (const b of builds) await b.db.drop();
  }
}

// Child mode: the empty route, on the very fastify the services resolve.
if (process.argv[2] === '--empty-route') {
  const app = Fastify({ logger: false });
  app.get('/empty', async () => ({}));
  await app.listen({ port: Number(process.argv[3]), host: '127.0.0.1' });
  process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
} else {
  await main();
}
