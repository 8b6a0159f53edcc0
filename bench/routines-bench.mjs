#!/usr/bin/env node
// Routines at scale: the fill worker generating 14 days of 3 daily routines with 3 steps each for 1,000 users
// (168,000 tasks: each occurrence is a root and its 3 steps), and the p99 of one user's week view meanwhile.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres BASE_URL=http://127.0.0.1:8080 \
//     node bench/routines-bench.mjs
//
// Against a running all-in-one (or cluster) that uses DATABASE_URL, with its rate limits raised (see
// task-bench.mjs). One user is registered and creates its 3 routines through the API (so their first fill is
// the request's own); the other 999 users' routines are written straight into the task schema with a fill due
// now, as a deployment holding them would have them when the worker's hour comes. The bench then waits until
// the worker has written every occurrence (polling counts in PostgreSQL), while autocannon reads the registered
// user's `GET /calendar/events?view=week`, then until the scheduler's runs placing them are done. Prints the
// time, tasks per second, how many occurrences were placed (a 09:00-11:00 window inside the default working
// hours: weekend dates stay pending) and the read's p50/p99.
// Optional env: USERS (default 1000), ROUTINES (3), STEPS (3), DAYS (14), DURATION of each read sample (s, 10).
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { benchUser, client, measure, saveResults } from './lib.mjs';

const testkitRequire = createRequire(new URL('../packages/testkit/package.json', import.meta.url));
const { default: pg } = await import(pathToFileURL(testkitRequire.resolve('pg')).href);

const USERS = Number(process.env.USERS ?? 1000);
const ROUTINES = Number(process.env.ROUTINES ?? 3);
const STEPS = Number(process.env.STEPS ?? 3);
const DAYS = Number(process.env.DAYS ?? 14);
const db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
const today = new Date().toISOString().slice(0, 10);
const recurrence = { rule: 'FREQ=DAILY', starts_on: today, until: null, window: { start: '09:00', end: '11:00' } };
const expected = USERS * ROUTINES * DAYS * (1 + STEPS);

const user = await benchUser('routines-bench');
const api = client(user.token);
for (let r = 0; r < ROUTINES; r++) {
  const series = await api('POST', '/service/tasks', { title: `routine ${r}`, duration_min: 0 });
  for (let s = 0; s < STEPS; s++) {
    await api('POST', '/service/tasks', { title: `step ${s}`, duration_min: 10, parent_task_id: series.id });
  }
  await api('PATCH', `/service/tasks/${series.id}`, { recurrence: { ...recurrence, horizon_days: DAYS - 1 } });
}

console.error(`seeding ${USERS - 1} users x ${ROUTINES} routines x ${STEPS} steps ...`);
const seeded = [];
for (let u = 1; u < USERS; u++) {
  const tenantId = randomUUID();
  const userId = randomUUID();
  for (let r = 0; r < ROUTINES; r++) {
    const seriesId = randomUUID();
    seeded.push({
      tenantId,
      userId,
      id: seriesId,
      parent: null,
      depth: 1,
      order: r,
      title: `routine ${r}`,
      duration: 0,
    });
    for (let s = 0; s < STEPS; s++) {
      seeded.push({
        tenantId,
        userId,
        id: randomUUID(),
        parent: seriesId,
        depth: 2,
        order: s,
        title: `step ${s}`,
        duration: 10,
      });
    }
  }
}
const stored = JSON.stringify({ ...recurrence, horizon_days: DAYS - 1, auto_schedule: true });
for (let i = 0; i < seeded.length; i += 2000) {
  const chunk = seeded.slice(i, i + 2000);
  await db.query(
    `insert into task.tasks (id, tenant_id, user_id, parent_task_id, depth, sort_order, title, status, priority,
       duration_min, reminder_channels, reminder_offset_min, tags, created_at, updated_at, version, recurrence)
     select x.id, x."tenantId", x."userId", x.parent, x.depth, x."order", x.title, 'pending', 3, x.duration,
       '{inapp}', 10, '{}', now(), now(), 1, case when x.parent is null then $2::jsonb end
     from jsonb_to_recordset($1::jsonb) as x(id uuid, "tenantId" uuid, "userId" uuid, parent uuid, depth smallint,
       "order" int, title text, duration int)`,
    [JSON.stringify(chunk), stored],
  );
}
const started = Date.now();
await db.query(
  `insert into task.task_series_fills (series_id, tenant_id, user_id, due_at, filled_through)
   select id, tenant_id, user_id, now(), (current_date - 1) from task.tasks
   where recurrence is not null and parent_task_id is null and not exists
     (select 1 from task.task_series_fills f where f.series_id = tasks.id)`,
);

const generated = async () =>
  Number((await db.query('select count(*)::int as n from task.tasks where series_id is not null')).rows[0].n);
const reads = [];
let count = await generated();
while (count < expected) {
  reads.push(
    await measure('GET /calendar/events?view=week during the fill', {
      paths: ['/service/calendar/events?view=week'],
      token: user.token,
      connections: 10,
    }),
  );
  count = await generated();
  console.error(`${count} / ${expected} occurrence tasks after ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
const seconds = (Date.now() - started) / 1000;
// Then the placement: the scheduler's runs for those occurrences (one per series fill) until none is left.
const openRuns = async () =>
  Number(
    (await db.query("select count(*)::int as n from scheduler.schedule_runs where status in ('queued', 'running')"))
      .rows[0].n,
  );
while ((await openRuns()) > 0) {
  reads.push(
    await measure('GET /calendar/events?view=week during the placement', {
      paths: ['/service/calendar/events?view=week'],
      token: user.token,
      connections: 10,
    }),
  );
  console.error(`${await openRuns()} runs still open after ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
const placedSeconds = (Date.now() - started) / 1000;
const scheduled = Number(
  (
    await db.query(
      "select count(*)::int as n from task.tasks where occurrence_date is not null and status = 'scheduled'",
    )
  ).rows[0].n,
);
const summary = {
  users: USERS,
  tasks_generated: count,
  seconds: Number(seconds.toFixed(1)),
  tasks_per_s: Math.round(count / seconds),
  occurrences_scheduled: scheduled,
  placed_after_seconds: Number(placedSeconds.toFixed(1)),
  week_view_p99_ms: Math.max(...reads.map((r) => r.p99_ms)),
  week_view_p50_ms: reads.map((r) => r.p50_ms).sort((a, b) => a - b)[Math.floor(reads.length / 2)],
};
console.log(JSON.stringify(summary));
saveResults('routines', { summary, reads });
await db.end();
