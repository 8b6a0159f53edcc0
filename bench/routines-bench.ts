// Routines at scale (ADR 055): USERS users (1,000) x 3 daily routines x 3 steps, on the task and scheduler
// services in one process (as the all-in-one runs them) on their own scratch databases, with a clock the bench
// moves. It prints:
//   setup        the users' settings (working hours every day) and the routines' templates, not measured
//   first fill   from the first recurrence PATCH until every occurrence of the 14-day horizon is generated
//                (the PATCHes answered) and placed (no run queued or running, no open occurrence left)
//   steady hour  the clock moved one hour: every series is due; until every fill ran again (nothing new)
//   new day      the clock moved past local midnight: every series adds one occurrence; until all are placed
// with wall time, the process's CPU, runs and occurrences. Nothing is asserted; figures go to bench/results/.
//
//   DATABASE_URL=... REDIS_URL=... NATS_URL=... npm run bench -- routines-bench
//   USERS=100 CONCURRENCY=16 TIMEOUT_S=600 npm run bench -- routines-bench
import { column, row, Sql } from '@routinely/db';
import { Server, startRpcServer, stopRpcServer } from '@routinely/grpc';
import { ManualClock } from '@routinely/platform';
import { schedulerModule } from '@routinely/scheduler';
import { taskModule } from '@routinely/task';
import { startServiceHarness } from '@routinely/testkit/service-harness';
import { pool, saveResults } from './lib.ts';

const USERS = Number(process.env.USERS ?? 1_000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const TIMEOUT_MS = Number(process.env.TIMEOUT_S ?? 900) * 1_000;
const INTERNAL_SECRET = 'bench-internal-secret-of-at-least-32-chars';
const NO_PEER = '127.0.0.1:9';
const HOUR_MS = 3_600_000;
const ROUTINES = [
  { title: 'Morning routine', window: { start: '09:00', end: '11:00' } },
  { title: 'Midday routine', window: { start: '11:00', end: '13:00' } },
  { title: 'Afternoon routine', window: { start: '14:00', end: '16:00' } },
];
const EVERY_DAY = Object.fromEntries(
  ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((day) => [day, [{ start: '09:00', end: '17:00' }]]),
);

const clock = new ManualClock();
clock.set('2026-11-23T05:00:00Z'); // a Monday, before the routines' windows (users in UTC)
const transport = taskModule.local.transport();
// The services run with their own defaults, but for the fill worker's poll (60 s): the clock the bench moves makes
// series due, and the new day should measure the fill's work, not the wait for the next poll.
const task = await startServiceHarness(taskModule, {
  env: { ROUTINE_FILL_POLL_MS: '100', LOG_LEVEL: 'warn' },
  clock,
  transport,
  internalSecret: INTERNAL_SECRET,
  grpcAddresses: { delivery: NO_PEER, integration: NO_PEER },
});
const taskServer = new Server();
task.service.addGrpc?.(taskServer);
const taskAddress = await startRpcServer(taskServer, '127.0.0.1', 0);
const scheduler = await startServiceHarness(schedulerModule, {
  env: { LOG_LEVEL: 'warn' },
  clock,
  transport,
  internalSecret: INTERNAL_SECRET,
  grpcAddresses: { task: taskAddress },
});
const taskSql = Sql.of(task.orm);
const schedulerSql = Sql.of(scheduler.orm);

async function ok(res: { statusCode: number; body: string }, status = 200) {
  if (res.statusCode !== status)
    throw new Error(`expected ${status}, got ${res.statusCode}: ${res.body.slice(0, 300)}`);
  return JSON.parse(res.body || 'null');
}

/** Runs by status (a cheap read: the wait polls it until no run is left to take). */
async function runsByStatus() {
  const runs = await schedulerSql.rows(
    row({ status: column.text, n: column.integer }),
    'select status, count(*)::int as n from schedule_runs group by status',
  );
  return Object.fromEntries(runs.map((r) => [r.status, r.n])) as Record<string, number>;
}

/**
 * What the databases hold now: runs by status (`runs` when the caller just read them), open and placed occurrences
 * from today on, fills not yet due.
 */
async function state(runs?: Record<string, number>) {
  runs ??= await runsByStatus();
  const today = clock.now().toISOString().slice(0, 10);
  const [occ] = await taskSql.rows(
    row({ total: column.integer, open: column.integer, placed: column.integer }),
    `select count(*)::int as total, count(*) filter (where status = 'pending')::int as open,
       count(*) filter (where status = 'scheduled')::int as placed
     from tasks where series_id is not null and parent_task_id is null and occurrence_date >= ?::date`,
    [today],
  );
  const [fills] = await taskSql.rows(
    row({ due: column.integer }),
    'select count(*)::int as due from task_series_fills where due_at <= ?',
    [clock.now()],
  );
  const [outbox] = await taskSql.rows(
    row({ n: column.integer }),
    'select count(*)::int as n from outbox where published_at is null',
  );
  return {
    runs,
    occurrences: occ ?? { total: 0, open: 0, placed: 0 },
    fills_due: fills?.due ?? 0,
    unpublished: outbox?.n ?? 0,
  };
}

type State = Awaited<ReturnType<typeof state>>;
const settled = (s: State) =>
  s.fills_due === 0 && s.unpublished === 0 && !s.runs.queued && !s.runs.running && s.occurrences.open === 0;

/** Waits until `settled` (or the timeout); answers the wall time, the CPU and the final state. */
async function measure(name: string, start: () => Promise<void>) {
  const cpu = process.cpuUsage();
  const began = performance.now();
  await start();
  const generatedMs = performance.now() - began;
  let last = await state();
  while (!settled(last) && performance.now() - began < TIMEOUT_MS) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    // The whole state counts every occurrence (26 ms of PostgreSQL at 300 users): read only while no run is
    // queued or running, so the wait does not take time from the work it measures.
    const runs = await runsByStatus();
    if (!runs.queued && !runs.running) last = await state(runs);
  }
  if (!settled(last)) last = await state();
  const used = process.cpuUsage(cpu);
  const row = {
    phase: name,
    settled: settled(last),
    generated_s: Math.round(generatedMs) / 1000,
    placed_s: Math.round(performance.now() - began) / 1000,
    cpu_s: Math.round((used.user + used.system) / 1000) / 1000,
    ...last,
  };
  console.log(JSON.stringify(row));
  return row;
}

const users = Array.from({ length: USERS }, () => scheduler.tokens.user());
const templates: { user: (typeof users)[number]; id: string; window: { start: string; end: string } }[] = [];
console.error(`setup: ${USERS} users x ${ROUTINES.length} routines x 3 steps`);
await pool(users, CONCURRENCY, async (user) => {
  await ok(await scheduler.call(user, 'PATCH', '/service/settings/me', { working_hours: EVERY_DAY }));
  for (const routine of ROUTINES) {
    const root = await ok(
      await task.call(user, 'POST', '/service/tasks', { title: routine.title, duration_min: 0 }),
      201,
    );
    for (const step of ['first step', 'second step', 'third step']) {
      await ok(
        await task.call(user, 'POST', '/service/tasks', { title: step, duration_min: 15, parent_task_id: root.id }),
        201,
      );
    }
    templates.push({ user, id: root.id, window: routine.window });
  }
});

const rows = [];
rows.push(
  await measure('first fill', async () => {
    await pool(templates, CONCURRENCY, async ({ user, id, window }) => {
      const recurrence = { rule: 'FREQ=DAILY', window, horizon_days: 14 };
      await ok(await task.call(user, 'PATCH', `/service/tasks/${id}`, { recurrence }));
    });
  }),
);
rows.push(await measure('steady hour', async () => clock.advance(HOUR_MS)));
rows.push(await measure('new day', async () => clock.set('2026-11-24T00:30:00Z')));

saveResults('routines-bench', { users: USERS, routines: templates.length, concurrency: CONCURRENCY, rows });
await scheduler.close();
await task.close();
await stopRpcServer(taskServer);
await transport.close();
process.exit(0);
