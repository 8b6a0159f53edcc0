#!/usr/bin/env node
// How close to the bare undici loop a webhook delivery that keeps its state in PostgreSQL can come on this
// machine. Not a test, and not the product: the least work any durable design does, run in
// the bench's own process, against the bare loop of ratios.mjs to the same receiver, alternately.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- durable-floor
//
// The "durable floor" fires COUNT (default 1,000) reminders of the delivery service's own schema (its
// migrations, in a scratch database) in one statement per batch (20, then 200, as the firer does): the
// reminders are claimed (FOR UPDATE SKIP LOCKED), marked fired and their deliveries inserted, the payload built
// by PostgreSQL and returned. It posts each at once, signed (HMAC-SHA256 with a KeyObject), CONCURRENCY (default
// 2, the endpoint's limit) in flight through one keep-alive undici Agent, and records the successes 25 at a time
// in one statement (the delivery marked sent and its attempts-log row), as SentRecorder does. What it leaves out,
// and the product cannot: leases and their fencing tokens, the claims' lock and endpoint rules, the endpoint's
// read, retries, circuit and dead letters, metrics and logs. So its share of the bare loop bounds what the
// product can reach here from above. Each round measures it on one event loop ("single") and with the posts in
// a worker thread ("threaded", the firing and the records on the main thread), then the bare loop; round 0 warms
// every path up and is not counted, RUNS (default 3) rounds are; one JSON line per round, then the medians.
import { createSecretKey, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { freePort, startChild, stopChild } from './children.mjs';
import { cpuMsOf, dbBackendsCpuMs } from './proc-cpu.mjs';
import { collect, measureBareLoop, postSigned, ratePerS, startReceiver } from './webhook-ratio.mjs';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
const COUNT = Number(process.env.COUNT ?? 1000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 2);
const RUNS = Number(process.env.RUNS ?? 3);
const RECORD_BATCH = 25;

const root = new URL('../', import.meta.url);
const serviceRequire = createRequire(new URL('services/delivery/package.json', root));
const { Agent } = await import(pathToFileURL(serviceRequire.resolve('undici')).href);
const testkitRequire = createRequire(new URL('packages/testkit/package.json', root));
const { default: pg } = await import(pathToFileURL(testkitRequire.resolve('pg')).href);

const FIRE = `with due as (
    select id, tenant_id, user_id, task, reminder_set_at from reminders
    where status = 'scheduled' and remind_at <= now() order by remind_at limit $1 for update skip locked),
  fired as (update reminders r set status = 'fired', fired_at = now(), updated_at = now() from due where r.id = due.id),
  made as (select due.*, gen_random_uuid() as delivery_id, gen_random_uuid() as event_id from due)
  insert into deliveries (id, tenant_id, user_id, reminder_id, endpoint_id, channel, event, event_id, payload,
    max_attempts, status, attempts, next_attempt_at, created_at, updated_at)
  select delivery_id, tenant_id, user_id, id, $2, 'webhook', 'reminder.fired', event_id,
    jsonb_build_object('event', 'reminder.fired', 'event_id', event_id, 'delivery_id', delivery_id,
      'occurred_at', now(), 'reminder_set_at', reminder_set_at, 'tenant_id', tenant_id, 'user_id', user_id,
      'task', task),
    8, 'pending', 0, now(), now(), now()
  from made returning id, event_id, payload`;

const RECORD = `with v as (
    select * from unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::uuid[], $5::int[])
      as v(id, status_code, at, attempt_id, latency_ms)),
  sent as (
    update deliveries d set status = 'sent', attempts = d.attempts + 1, next_attempt_at = null,
      last_status_code = v.status_code, last_error = null, last_attempt_at = v.at, delivered_at = v.at, updated_at = v.at
    from v where d.id = v.id
    returning d.id, d.tenant_id, d.user_id, d.endpoint_id, d.event, d.event_id, d.attempts, v.attempt_id, v.at,
      v.status_code, v.latency_ms)
  insert into delivery_attempts
    (id, tenant_id, user_id, delivery_id, endpoint_id, event, event_id, attempt, at, status_code, error, latency_ms)
  select attempt_id, tenant_id, user_id, id, endpoint_id, event, event_id, attempts, at, status_code, null, latency_ms
  from sent`;

/** COUNT scheduled reminders of one user, due now, with a task snapshot of the size the product sends. */
async function seed(client) {
  await client.query('truncate deliveries, delivery_attempts, reminders');
  await client.query(
    `insert into reminders (id, tenant_id, user_id, task_id, task, task_updated_at, channels, remind_at, status,
       reminder_set_at, created_at, updated_at)
     select gen_random_uuid(), 'tenant-bench', 'user-bench', t, jsonb_build_object('id', t, 'title',
       'Durable floor task ' || i, 'status', 'pending', 'priority', 3, 'duration_min', 30, 'deadline_at', null,
       'chosen_slot_start', now(), 'chosen_slot_end', now() + interval '30 minutes', 'updated_at', now()),
       now(), '["webhook"]', now() - interval '1 second', 'scheduled', now(), now(), now()
     from (select i, gen_random_uuid() as t from generate_series(1, $1) as i) as s`,
    [COUNT],
  );
  await client.query('vacuum analyze reminders');
}

/**
 * Posts what is pushed, CONCURRENCY at once, signed, through one keep-alive Agent; `onOutcome` gets each answer.
 * `done` resolves after `end()` once the queue is empty and every post answered.
 */
function makeSender(url, onOutcome) {
  const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 10_000 });
  const key = createSecretKey(Buffer.from('whsec_durable-floor'));
  const queue = [];
  let ended = false;
  const waiting = []; // loops waiting for the next batch
  const wake = () => {
    for (const resolve of waiting.splice(0)) resolve();
  };
  const loop = async () => {
    for (;;) {
      const delivery = queue.shift();
      if (!delivery) {
        if (ended) return;
        await new Promise((resolve) => waiting.push(resolve));
        continue;
      }
      const started = performance.now();
      const status = await postSigned({
        url,
        agent,
        secret: key,
        body: JSON.stringify(delivery.payload),
        eventId: delivery.event_id,
      });
      onOutcome({
        id: delivery.id,
        status,
        at: Date.now(),
        latencyMs: Math.round(performance.now() - started),
      });
    }
  };
  const loops = Array.from({ length: CONCURRENCY }, loop);
  return {
    push: (deliveries) => {
      queue.push(...deliveries);
      wake();
    },
    end: () => {
      ended = true;
      wake();
    },
    done: Promise.all(loops).then(() => agent.close()),
  };
}

// --- worker thread: the sender on an event loop of its own, one pass after another, outcomes posted back in
// groups (one message per turn of its event loop) ---
if (!isMainThread) {
  const outcomes = [];
  const post = () => outcomes.length > 0 && parentPort.postMessage({ outcomes: outcomes.splice(0) });
  const pass = () =>
    makeSender(workerData.url, (outcome) => {
      if (outcomes.push(outcome) === 1) setImmediate(post);
    });
  let sender = pass();
  parentPort.on('message', async (message) => {
    if (message.deliveries) return sender.push(message.deliveries);
    sender.end();
    await sender.done;
    post();
    parentPort.postMessage({ done: true });
    sender = pass();
  });
}

/**
 * Fires, posts and records every due reminder; resolves when the last outcome is written. With `worker` the
 * posts run in that worker thread, the firing and the records on this event loop.
 */
async function durableFloor({ client, receiver, worker }) {
  const endpointId = randomUUID();
  const outcomes = [];
  const writes = [];
  let lingering;
  const flush = () => {
    clearTimeout(lingering);
    lingering = undefined;
    const items = outcomes.splice(0);
    if (items.length === 0) return;
    const column = (f) => items.map(f);
    writes.push(
      client.query(RECORD, [
        column((o) => o.id),
        column((o) => o.status),
        column((o) => new Date(o.at)),
        column(() => randomUUID()),
        column((o) => o.latencyMs),
      ]),
    );
  };
  const record = (outcome) => {
    outcomes.push(outcome);
    if (outcomes.length >= RECORD_BATCH) flush();
    else lingering ??= setTimeout(flush, 25);
  };
  let sender;
  if (worker) {
    const done = new Promise((resolve, reject) => {
      const onMessage = (message) => {
        for (const outcome of message.outcomes ?? []) record(outcome);
        if (!message.done) return;
        worker.off('message', onMessage).off('error', reject);
        resolve();
      };
      worker.on('message', onMessage).on('error', reject);
    });
    sender = {
      push: (deliveries) => worker.postMessage({ deliveries }),
      end: () => worker.postMessage({ end: true }),
      done,
    };
  } else {
    sender = makeSender(receiver.url, record);
  }
  for (let batch = 20; ; batch = 200) {
    const { rows } = await client.query(FIRE, [batch, endpointId]);
    sender.push(rows);
    if (rows.length < batch) break;
  }
  sender.end();
  await sender.done;
  flush();
  await Promise.all(writes);
  const { rows } = await client.query(`select count(*)::int as n from deliveries where status = 'sent'`);
  return rows[0].n;
}

async function main() {
  // Loaded here, not at the top: the worker thread runs this module too and needs none of them.
  const { createTestDatabase } = await import(new URL('packages/testkit/dist/infra.js', root).href);
  const { openOrm } = await import(new URL('packages/db/dist/index.js', root).href);
  const { dbConfig } = await import(new URL('services/delivery/dist/db/config.js', root).href);
  const db = await createTestDatabase();
  const orm = await openOrm(db.url, dbConfig); // the delivery service's schema, by its migrations
  await orm.close();
  const client = new pg.Client({ connectionString: db.url, options: '-c search_path=delivery' });
  const sampler = new pg.Client({ connectionString: db.url });
  await Promise.all([client.connect(), sampler.connect()]);
  const receiver = await startReceiver({ startChild, freePort });
  const cpu = async () => ({
    self: cpuMsOf(process.pid),
    db: await dbBackendsCpuMs(sampler, db.name),
    receiver: cpuMsOf(receiver.child.pid),
  });
  const perDelivery = (from, to) =>
    Object.fromEntries(Object.keys(from).map((k) => [k, Math.round(((to[k] - from[k]) * 1000) / COUNT)]));
  const worker = new Worker(new URL(import.meta.url), { workerData: { url: receiver.url } });
  /** One durable pass from seeding to the last record, measured at the receiver. */
  const durable = async (threaded) => {
    await seed(client);
    await receiver.reset();
    const before = await cpu();
    const recorded = await durableFloor({ client, receiver, worker: threaded ? worker : undefined });
    const after = await cpu();
    const got = await collect(receiver, COUNT, 5_000);
    const at = [...got.at_ms].sort((a, b) => a - b);
    return {
      per_s: ratePerS(at),
      each_once: at.length === COUNT && new Set(got.event_ids).size === COUNT && recorded === COUNT,
      body_bytes: Math.round(got.sizes.reduce((a, b) => a + b, 0) / Math.max(1, got.sizes.length)),
      cpu_us_per_delivery: perDelivery(before, after),
    };
  };
  const results = [];
  try {
    // Round 0 warms every path up (as ratios.mjs measures a second burst) and is not counted.
    for (let round = 0; round <= RUNS; round++) {
      const single = await durable(false);
      const threaded = await durable(true);
      const bareBefore = await cpu();
      const bare = await measureBareLoop({
        receiver,
        count: COUNT,
        concurrency: CONCURRENCY,
        bodyBytes: single.body_bytes,
      });
      const bareAfter = await cpu();
      const share = (figure) => Number((figure.per_s / bare.deliveries_per_s).toFixed(3));
      const row = {
        round,
        bare_per_s: bare.deliveries_per_s,
        bare_cpu_us_per_request: perDelivery(bareBefore, bareAfter),
        single: { ...single, share: share(single) },
        threaded: { ...threaded, share: share(threaded) },
      };
      console.log(JSON.stringify(row));
      if (round > 0) results.push(row);
    }
    const median = (f) => results.map(f).sort((a, b) => a - b)[Math.floor(results.length / 2)];
    const line = (name) =>
      `${name}: ${median((r) => r[name].per_s).toLocaleString('en')}/s, share ${median((r) => r[name].share)}`;
    console.log(
      `bare loop ${median((r) => r.bare_per_s).toLocaleString('en')}/s at ${CONCURRENCY} in flight; durable floor, ` +
        `${line('single')} (one event loop), ${line('threaded')} (posts in a worker thread); medians of ${RUNS}; ` +
        `each once in every run: ${results.every((r) => r.single.each_once && r.threaded.each_once)}`,
    );
  } finally {
    await worker.terminate();
    await stopChild(receiver.child);
    await Promise.all([client.end(), sampler.end()]);
    await db.drop();
  }
}

if (isMainThread) await main();
