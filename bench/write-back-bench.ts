// Calendar write-back under a burst (ADR 063): 100 users, each with Google connected (the testkit fake on
// loopback) and 10 scheduled tasks; 1,000 slot changes (one per task) sent at once while autocannon reads
// GET /tasks/{id}. Run twice on one all-in-one: write-back off, then on. Reports the write-back lag (from the
// PATCH's answer to the fake applying the event at the new slot: p50/p99/max, and whether all 1,000 arrived)
// and the task read's p99 in both runs. Not a test: nothing is asserted.
//
//   DATABASE_URL=... REDIS_URL=... NATS_URL=... npm run bench -- write-back-bench
//
// Options: USERS (100), TASKS_PER_USER (10), DURATION (s of the read measurement, default 10), CONNECTIONS (20).
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FakeGoogle } from '@routinely/testkit/fake-google';
import { testHostEnv } from '@routinely/testkit/host-env';
import { createTestDatabase } from '@routinely/testkit/infra';
import { client, type Json, measure, pool, saveResults } from './lib.ts';
import { freePort, startChild, stopChild } from './processes.ts';

const USERS = Number(process.env.USERS ?? 100);
const TASKS_PER_USER = Number(process.env.TASKS_PER_USER ?? 10);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 20);
const eventId = (taskId: string) => `rt${taskId.replaceAll('-', '')}`;
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

interface User {
  token: string;
  integrationId: string;
  taskIds: string[];
}

async function setUp(url: string): Promise<User[]> {
  const anonymous = client(undefined, url);
  return pool(
    Array.from({ length: USERS }, (_, i) => i),
    10,
    async (i) => {
      const email = `write-back-${i}-${Date.now()}@example.test`;
      const { access_token: token } = await anonymous('POST', '/auth/register', {
        email,
        password: 'bench password 123',
        name: `wb${i}`,
        tenant_id: crypto.randomUUID(),
      });
      const api = client(token, url);
      const taskIds: string[] = [];
      for (let t = 0; t < TASKS_PER_USER; t++) {
        const task = await api('POST', '/service/tasks', { title: `Task ${t}`, duration_min: 30 });
        taskIds.push(task.id);
      }
      const start = await api('POST', '/service/integrations/google/oauth/start', { return_url: '/settings' });
      const consent = await fetch(start.auth_url, { redirect: 'manual' });
      const callback = new URL(consent.headers.get('location') ?? '');
      const back = await fetch(`${url}${callback.pathname}${callback.search}`, { redirect: 'manual' });
      if (back.status !== 302) throw new Error(`callback answered ${back.status}`);
      return { token, integrationId: start.integration_id as string, taskIds };
    },
  );
}

/** One slot change per task, all at once; answers when each PATCH was answered (epoch ms), by event id and start. */
async function burst(
  url: string,
  users: User[],
  dayOffset: number,
): Promise<Map<string, { start: string; at: number }>> {
  const changes = users.flatMap((u) => u.taskIds.map((taskId, i) => ({ u, taskId, i })));
  const answered = new Map<string, { start: string; at: number }>();
  await pool(changes, 50, async ({ u, taskId, i }) => {
    const start = new Date(Date.UTC(2027, 0, 4 + dayOffset, 7 + i, 0, 0));
    const end = new Date(start.getTime() + 30 * 60_000);
    await client(u.token, url)('PATCH', `/service/tasks/${taskId}`, {
      chosen_slot_start: start.toISOString(),
      chosen_slot_end: end.toISOString(),
    });
    answered.set(eventId(taskId), { start: start.toISOString(), at: Date.now() });
  });
  return answered;
}

/** Lags of the writes the fake applied for `answered` (waits up to `waitMs` for all of them). */
async function lags(google: FakeGoogle, answered: Map<string, { start: string; at: number }>, since: number) {
  const deadline = Date.now() + 120_000;
  let found = new Map<string, number>();
  while (Date.now() < deadline) {
    found = new Map();
    for (const entry of google.written.log.slice(since)) {
      const change = answered.get(entry.eventId);
      const start = (entry.body?.start as { dateTime?: string } | undefined)?.dateTime;
      if (change && start === change.start && !found.has(entry.eventId)) found.set(entry.eventId, entry.at - change.at);
    }
    if (found.size === answered.size) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const sorted = [...found.values()].sort((a, b) => a - b);
  return {
    written: found.size,
    expected: answered.size,
    p50_ms: percentile(sorted, 0.5),
    p99_ms: percentile(sorted, 0.99),
    max_ms: sorted.at(-1) ?? 0,
  };
}

async function main() {
  process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
  const google = await FakeGoogle.start();
  google.pageSize = 250;
  const db = await createTestDatabase();
  const url = `http://127.0.0.1:${await freePort()}`;
  const unlimited = '1000000000';
  let child: ChildProcess | undefined;
  try {
    const main = fileURLToPath(new URL('../apps/all-in-one/dist/main.js', import.meta.url));
    child = await startChild(
      'all-in-one',
      [main],
      {
        ...process.env,
        ...testHostEnv(db.url, `bench_write_back_${Date.now()}`),
        ...google.env(),
        PORT: new URL(url).port,
        PUBLIC_BASE_URL: url,
        LOG_LEVEL: 'warn',
        SHUTDOWN_DRAIN_MS: '0',
        RATE_LIMIT_PER_MINUTE: unlimited,
        RATE_LIMIT_PER_HOUR: unlimited,
        RATE_LIMIT_BURST: unlimited,
        INTEGRATION_POLL_INTERVAL_S: '3600',
      },
      `${url}/readyz`,
    );
    const users = await setUp(url);
    console.error(`${users.length} users, ${users.length * TASKS_PER_USER} tasks, Google connected`);
    const reader = users[0] as User;
    const readPaths = reader.taskIds.map((id) => `/service/tasks/${id}`);
    await measure('warm-up', { url, paths: readPaths, token: reader.token, connections: 10, duration: 2 });

    // Run 1: write-back off.
    const readOff = measure('GET /tasks/{id} during 1,000 slot changes, write-back off', {
      url,
      paths: readPaths,
      token: reader.token,
      connections: CONNECTIONS,
    });
    await burst(url, users, 0);
    const off = await readOff;

    // Write-back on for everyone; wait until the slots already set are written (not part of the figures).
    await pool(users, 10, (u) =>
      client(u.token, url)('PATCH', `/service/integrations/${u.integrationId}`, { write_back: { enabled: true } }),
    );
    const backfill = Date.now();
    while (google.written.log.length < users.length * TASKS_PER_USER && Date.now() - backfill < 180_000) {
      await new Promise((r) => setTimeout(r, 500));
    }
    console.error(`backfill: ${google.written.log.length} writes in ${Date.now() - backfill} ms`);

    // Run 2: write-back on.
    const since = google.written.log.length;
    const readOn = measure('GET /tasks/{id} during 1,000 slot changes, write-back on', {
      url,
      paths: readPaths,
      token: reader.token,
      connections: CONNECTIONS,
    });
    const answered = await burst(url, users, 7);
    const on = await readOn;
    const lag = await lags(google, answered, since);
    console.log(JSON.stringify({ title: 'write-back lag (PATCH answered -> event at the new slot upstream)', ...lag }));
    const ratio = on.p99_ms / Math.max(off.p99_ms, 1);
    console.log(JSON.stringify({ title: 'GET /tasks/{id} p99 on/off', off_ms: off.p99_ms, on_ms: on.p99_ms, ratio }));
    saveResults('write-back-bench', { users: USERS, tasks_per_user: TASKS_PER_USER, off, on, lag, ratio } as Json);
  } finally {
    if (child) await stopChild(child);
    await google.close();
    await db.drop();
  }
}

await main();
