// Task service throughput: task creation, GET /tasks/{id}, a GET /tasks page of 100, and the tree of a
// 500-task subtree. Not a timed test; the lead runs it against a running deployment (all-in-one or cluster).
//
//   BASE_URL=http://127.0.0.1:8080 TOKEN=<access token> npm run bench -- task-bench
//
// Optional env: DURATION (s, default 10), CONNECTIONS (default 50), MOUNT (default /api/v1).
// Without TOKEN a fresh user is registered through the auth service (bench/lib.mjs).
// The per-IP rate limit (100/min by default) must be raised on the server for the run, e.g.
// RATE_LIMIT_PER_MINUTE=100000000 RATE_LIMIT_PER_HOUR=100000000 RATE_LIMIT_BURST=100000000; non-2xx answers
// are reported. Targets (report, not assert): create >= 1,000/s, get >= 3,000/s, tree of 500 p99 < 50 ms.
import { benchToken, client, measure, pool, type Row, saveResults } from './lib.ts';

const token = await benchToken('task-bench');
const api = client(token);
const create = (title: string, parent: string | null = null) =>
  api<{ id: string }>('POST', '/service/tasks', { title, duration_min: 15, parent_task_id: parent, tags: ['bench'] });

/** A subtree of exactly `size` tasks over four levels: root, 9 children, 45 grandchildren, the rest below. */
async function seedTree(size = 500) {
  const root = await create('bench tree root');
  const children = await pool([...Array(9).keys()], 9, (i) => create(`child ${i}`, root.id));
  const grand = await pool([...Array(45).keys()], 20, (i) => create(`grandchild ${i}`, children[i % 9]?.id ?? null));
  const rest = size - 1 - children.length - grand.length;
  await pool([...Array(rest).keys()], 20, (i) => create(`leaf ${i}`, grand[i % grand.length]?.id ?? null));
  return root.id;
}

console.error('seeding a 500-task tree ...');
const rootId = await seedTree(500);
const tree = await api('GET', `/service/tasks/${rootId}/tree`);
if (tree.rolled_up_duration_min !== 500 * 15) throw new Error('seeded tree is not 500 tasks');
const one = await create('bench single');

const rows: Row[] = [];
rows.push(
  await measure('POST /service/tasks (create)', {
    method: 'POST',
    paths: ['/service/tasks'],
    body: JSON.stringify({ title: 'bench create', duration_min: 10 }),
    token,
  }),
);
rows.push(await measure('GET /service/tasks/{id}', { paths: [`/service/tasks/${one.id}`], token }));
rows.push(await measure('GET /service/tasks?limit=100', { paths: ['/service/tasks?limit=100'], token }));
rows.push(
  await measure('GET /service/tasks/{id}/tree (500 tasks)', { paths: [`/service/tasks/${rootId}/tree`], token }),
);

saveResults('task', { rows });
