#!/usr/bin/env node
// Task service throughput: task creation, GET /tasks/{id}, a GET /tasks page of 100, and the tree of a
// 500-task subtree. Not a timed test; the lead runs it against a running deployment (all-in-one or cluster).
//
//   BASE_URL=http://127.0.0.1:8080 TOKEN=<access token> node bench/task-bench.mjs
//
// Optional env: DURATION (s, default 10), CONNECTIONS (default 50), MOUNT (default /api/v1).
// Without TOKEN a fresh user is registered through the auth service (bench/lib.mjs).
// The per-IP rate limit (100/min by default) must be raised on the server for the run, e.g.
// RATE_LIMIT_PER_MINUTE=100000000 RATE_LIMIT_PER_HOUR=100000000 RATE_LIMIT_BURST=100000000; non-2xx answers
// are reported. Targets (report, not assert): create >= 1,000/s, get >= 3,000/s, tree of 500 p99 < 50 ms.
import { mkdirSync, writeFileSync } from 'node:fs';
import autocannon from 'autocannon';

const BASE_URL = (process.env.BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
const TOKEN = process.env.TOKEN ?? (await import('./lib.mjs').then((lib) => lib.benchUser('task-bench'))).token;
const MOUNT = process.env.MOUNT ?? '/api/v1';
const DURATION = Number(process.env.DURATION ?? 10);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

async function api(method, path, body) {
  const res = await fetch(`${BASE_URL}${MOUNT}${path}`, { method, headers, body: body && JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status} ${await res.text()}`);
  return res.status === 204 ? null : res.json();
}

/** Runs `task` over `inputs` with at most `limit` in flight. */
async function pool(inputs, limit, task) {
  const out = new Array(inputs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < inputs.length) {
        const i = next++;
        out[i] = await task(inputs[i], i);
      }
    }),
  );
  return out;
}

const create = (title, parent = null) =>
  api('POST', '/service/tasks', { title, duration_min: 15, parent_task_id: parent, tags: ['bench'] });

/** A subtree of exactly `size` tasks over four levels: root, 9 children, 45 grandchildren, the rest below. */
async function seedTree(size = 500) {
  const root = await create('bench tree root');
  const children = await pool([...Array(9).keys()], 9, (i) => create(`child ${i}`, root.id));
  const grand = await pool([...Array(45).keys()], 20, (i) => create(`grandchild ${i}`, children[i % 9].id));
  const rest = size - 1 - children.length - grand.length;
  await pool([...Array(rest).keys()], 20, (i) => create(`leaf ${i}`, grand[i % grand.length].id));
  return root.id;
}

async function run(title, options) {
  const result = await autocannon({
    url: `${BASE_URL}${MOUNT}${options.path}`,
    method: options.method ?? 'GET',
    headers,
    body: options.body,
    duration: DURATION,
    connections: CONNECTIONS,
  });
  const row = {
    title,
    connections: CONNECTIONS,
    requests_per_s: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    non_2xx: result.non2xx,
    errors: result.errors,
  };
  console.log(JSON.stringify(row));
  return row;
}

console.error(`seeding a 500-task tree and a page of 100 on ${BASE_URL}${MOUNT} ...`);
const rootId = await seedTree(500);
const tree = await api('GET', `/service/tasks/${rootId}/tree`);
if (tree.rolled_up_duration_min !== 500 * 15) throw new Error('seeded tree is not 500 tasks');
const one = await create('bench single');

const rows = [];
rows.push(await run('POST /service/tasks (create)', { method: 'POST', path: '/service/tasks', body: JSON.stringify({ title: 'bench create', duration_min: 10 }) }));
rows.push(await run('GET /service/tasks/{id}', { path: `/service/tasks/${one.id}` }));
rows.push(await run('GET /service/tasks?limit=100', { path: '/service/tasks?limit=100' }));
rows.push(await run('GET /service/tasks/{id}/tree (500 tasks)', { path: `/service/tasks/${rootId}/tree` }));

mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
const file = new URL(`./results/task-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, import.meta.url);
writeFileSync(file, `${JSON.stringify({ base_url: BASE_URL, duration_s: DURATION, rows }, null, 2)}\n`);
console.error(`results written to ${file.pathname}`);
