#!/usr/bin/env node
// One user's heaviest legal scheduler requests beside another user's light ones: does the heavy user raise the
// other's latency? Starts the all-in-one (built) on a scratch database, registers two users, then measures the
// light user's `GET /auth/me` and `GET /service/settings/me` with autocannon alone, and again while the heavy
// user keeps HEAVY_LOOPS (default 4) loops busy, each request as soon as the last answered:
//   - POST /service/schedule of 10 tasks of 8 hours over a 90-day window (dry_run, so it can repeat);
//   - an override of a 31-day slot (the longest allowed);
//   - an override from year 1000 to 9999 (refused with 422 before any work: it used to take 150 s).
// Prints one JSON row per figure (p50/p99 of the light user) and the heavy user's answers by status.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres NATS_URL=nats://127.0.0.1:4222 \
//     REDIS_URL=redis://127.0.0.1:6379 npm run bench -- heavy-neighbour.mjs   (events and rate limits in-process)
//
// Optional env: DURATION (s per figure, default 5), CONNECTIONS (light user's, default 10), HEAVY_LOOPS.
// Nothing here asserts a timing; the 2 cores are shared with autocannon and the heavy loops.
import { fileURLToPath } from 'node:url';
import { freePort, startChild, stopChild } from './children.mjs';

const root = new URL('../', import.meta.url);

async function main() {
  process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
  process.env.DURATION ??= '5';
  process.env.CONNECTIONS ??= '10';
  const testkit = (file) => import(new URL(`packages/testkit/dist/${file}`, root).href);
  const { createTestDatabase } = await testkit('infra.js');
  const { testHostEnv } = await testkit('host-env.js');
  const appPort = await freePort();
  process.env.BASE_URL = `http://127.0.0.1:${appPort}`;
  const { benchUser, client, measure, pool, saveResults } = await import('./lib.mjs');
  const db = await createTestDatabase();
  let app;
  try {
    const unlimited = '1000000000';
    const env = { ...process.env, ...testHostEnv(db.url, `bench-${Date.now()}`) };
    for (const key of ['NATS_URL', 'REDIS_URL']) delete env[key];
    app = await startChild(
      'all-in-one',
      [fileURLToPath(new URL('apps/all-in-one/dist/main.js', root))],
      {
        ...env,
        PORT: String(appPort),
        LOG_LEVEL: 'warn',
        SHUTDOWN_DRAIN_MS: '0',
        RATE_LIMIT_PER_MINUTE: unlimited,
        RATE_LIMIT_PER_HOUR: unlimited,
        RATE_LIMIT_BURST: unlimited,
      },
      `http://127.0.0.1:${appPort}/readyz`,
    );
    const [heavy, light] = [await benchUser('heavy'), await benchUser('light')];
    const api = client(heavy.token);
    const tasks = await pool([...Array(10).keys()], 5, (i) =>
      api('POST', '/service/tasks', { title: `heavy ${i}`, duration_min: 480 }),
    );
    const one = await api('POST', '/service/tasks', { title: 'override me', duration_min: 30 });
    const placed = await api('POST', '/service/schedule', { task_ids: [one.id] });
    const decisionId = placed.decisions[0].id;
    const day = (offset) => new Date(Date.now() + offset * 86_400_000).toISOString();
    const heavyRequests = [
      ['POST', '/service/schedule', { task_ids: tasks.map((t) => t.id), window_end: day(89), dry_run: true }],
      [
        'POST',
        `/service/schedule/decisions/${decisionId}/override`,
        { chosen_slot_start: day(1), chosen_slot_end: day(32) },
      ],
      [
        'POST',
        `/service/schedule/decisions/${decisionId}/override`,
        { chosen_slot_start: '1000-01-01T00:00:00Z', chosen_slot_end: '9999-12-31T00:00:00Z' },
      ],
    ];
    const lightPaths = { me: ['/auth/me'], settings: ['/service/settings/me'] };
    const rows = [];
    for (const [name, paths] of Object.entries(lightPaths))
      rows.push(await measure(`light ${name}, alone`, { paths, token: light.token }));

    const statuses = {};
    let running = true;
    const loops = Array.from({ length: Number(process.env.HEAVY_LOOPS ?? 4) }, async (_, loop) => {
      for (let i = loop; running; i++) {
        const [method, path, body] = heavyRequests[i % heavyRequests.length];
        const res = await fetch(`${process.env.BASE_URL}/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${heavy.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        await res.arrayBuffer();
        const key = `${path.includes('override') ? 'override' : 'schedule'} ${res.status}`;
        statuses[key] = (statuses[key] ?? 0) + 1;
      }
    });
    for (const [name, paths] of Object.entries(lightPaths))
      rows.push(await measure(`light ${name}, beside the heavy user`, { paths, token: light.token }));
    running = false;
    await Promise.all(loops);
    console.log(JSON.stringify({ heavy_answers: statuses }));
    saveResults('heavy-neighbour', { rows, heavy_answers: statuses });
  } finally {
    if (app) await stopChild(app);
    await db.drop();
  }
}

await main();
