#!/usr/bin/env node
// Delivery service benchmark (not a test): builds the service directly against DATABASE_URL, on a scratch
// database, with a loopback receiver that verifies every signature.
//   1. signed webhook deliveries per second (target >= 1,000/s)
//   2. lag from remind_at to the first webhook attempt for 10,000 reminders due within one minute
//      (target p99 < 1 s)
// Needs a build first: pnpm --filter "@routinely/delivery..." build && pnpm --filter @routinely/testkit build
// Usage: node bench/delivery-bench.mjs [--deliveries 5000] [--reminders 10000]
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const args = {};
for (let i = 2; i < process.argv.length; i++) {
  if (process.argv[i].startsWith('--')) args[process.argv[i].slice(2)] = process.argv[++i];
}
const DELIVERIES = Number(args.deliveries ?? 5000);
const REMINDERS = Number(args.reminders ?? 10000);
process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';

const req = createRequire(new URL('../services/delivery/package.json', import.meta.url));
const load = (name) => import(pathToFileURL(req.resolve(name)).href);
const testkitReq = createRequire(new URL('../packages/testkit/package.json', import.meta.url));
const { openOrm } = await load('@routinely/db');
const { InProcessTransport } = await load('@routinely/events');
const { createLogger, parseConfig, systemClock } = await load('@routinely/platform');
const { buildTestHttpApp, createTestDatabase, TestTokens } = await import(
  pathToFileURL(testkitReq.resolve('@routinely/testkit')).href
);
const { saveResults } = await import('./lib.mjs');
const { buildService, configSchema, dbConfig } = await import(
  new URL('../services/delivery/dist/index.js', import.meta.url).href
);

// --- scratch database, and a lean loopback receiver that verifies every signature --------------------------
// Deliberately not the testkit's WebhookReceiver: that one records every request for assertions and halves
// the measured rate on this machine, so the figure would describe the receiver rather than the sender.
const db = await createTestDatabase();
let secret = '';
const arrivals = new Map(); // delivery id -> { at, taskId }
let invalid = 0;
const receiver = createServer((request, response) => {
  const chunks = [];
  request.on('data', (c) => chunks.push(c));
  request.on('end', () => {
    const at = Date.now();
    const raw = Buffer.concat(chunks);
    const [tPart, vPart] = String(request.headers['x-service-signature']).split(',');
    const expected = createHmac('sha256', secret)
      .update(`${tPart?.slice(2)}.`)
      .update(raw)
      .digest();
    const given = Buffer.from(vPart?.slice(3) ?? '', 'hex');
    const ok = given.length === expected.length && timingSafeEqual(given, expected);
    if (!ok) invalid++;
    const id = String(request.headers['x-service-delivery-id']);
    if (!arrivals.has(id)) arrivals.set(id, { at, taskId: JSON.parse(raw.toString()).task?.id });
    response.writeHead(ok ? 200 : 401).end();
  });
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

// --- the service --------------------------------------------------------------------------------------------
const orm = await openOrm(db.url, dbConfig, { poolMax: 20 });
const config = parseConfig(configSchema, {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  DELIVERY_WORKERS_ENABLED: 'true',
  DELIVERY_BATCH_SIZE: process.env.BENCH_BATCH ?? '200',
  DELIVERY_CONCURRENCY: process.env.BENCH_CONCURRENCY ?? '64',
  DELIVERY_POLL_MS: '1000',
  LOG_LEVEL: 'warn',
});
const service = buildService({
  config,
  logger: createLogger({ level: 'warn' }),
  clock: systemClock,
  orm,
  transport: new InProcessTransport(),
});
const tokens = await TestTokens.create();
const app = await buildTestHttpApp(service, tokens);
const user = tokens.user();
const created = await app.inject({
  method: 'POST',
  url: '/api/v1/service/webhooks',
  headers: await tokens.auth(user),
  payload: { name: 'bench', url: receiverUrl },
});
const endpoint = created.json();
secret = endpoint.secret;
await service.start();
const knex = orm.em.getKnex();

function payloadFor(id, taskId, at) {
  return {
    event: 'reminder.fired',
    delivery_id: id,
    occurred_at: at.toISOString(),
    reminder_set_at: at.toISOString(),
    tenant_id: user.tenantId,
    user_id: user.userId,
    task: {
      id: taskId,
      title: 'Bench task',
      description: null,
      priority: 3,
      duration_min: 30,
      chosen_slot_start: at.toISOString(),
      chosen_slot_end: at.toISOString(),
      tags: [],
    },
  };
}

async function waitUntil(predicate, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

// --- 1. throughput ----------------------------------------------------------------------------------------
const now = new Date();
const rows = Array.from({ length: DELIVERIES }, () => {
  const id = randomUUID();
  return {
    id,
    tenant_id: user.tenantId,
    user_id: user.userId,
    reminder_id: randomUUID(),
    endpoint_id: endpoint.id,
    channel: 'webhook',
    event: 'reminder.fired',
    payload: JSON.stringify(payloadFor(id, randomUUID(), now)),
    status: 'pending',
    attempts: 0,
    max_attempts: 4,
    next_attempt_at: new Date(Date.now() + 3_600_000), // parked until the clock starts
    created_at: now,
    updated_at: now,
  };
});
await knex.batchInsert('deliveries', rows, 1000);
const started = performance.now();
await knex.raw(`update deliveries set next_attempt_at = now() where status = 'pending'`);
await knex.raw(`select pg_notify('delivery_wakeup', 'deliveries')`);
await waitUntil(async () => {
  const { rows: r } = await knex.raw(`select count(*)::int as n from deliveries where status = 'sent'`);
  return r[0].n >= DELIVERIES;
}, 120_000);
const seconds = (performance.now() - started) / 1000;
const throughput = {
  deliveries: DELIVERIES,
  seconds: Number(seconds.toFixed(2)),
  per_second: Math.round(DELIVERIES / seconds),
  invalid_signatures: invalid,
};
console.log('signed deliveries to a loopback receiver:', throughput);

// --- 2. firing lag ----------------------------------------------------------------------------------------
arrivals.clear();
const minuteStart = Date.now() + 20_000; // time to insert before the first one is due
const remindAt = new Map();
const reminders = Array.from({ length: REMINDERS }, (_, i) => {
  const taskId = randomUUID();
  const at = new Date(minuteStart + Math.floor((i / REMINDERS) * 60_000));
  remindAt.set(taskId, at.getTime());
  const task = {
    id: taskId,
    tenant_id: user.tenantId,
    user_id: user.userId,
    title: 'Bench task',
    description: null,
    priority: 3,
    duration_min: 30,
    tags: [],
    chosen_slot_start: at.toISOString(),
    chosen_slot_end: at.toISOString(),
  };
  return {
    id: randomUUID(),
    tenant_id: user.tenantId,
    user_id: user.userId,
    task_id: taskId,
    task: JSON.stringify(task),
    task_updated_at: new Date(),
    channels: JSON.stringify(['webhook']),
    remind_at: at,
    status: 'scheduled',
    reminder_set_at: new Date(),
    created_at: new Date(),
    updated_at: new Date(),
  };
});
await knex.batchInsert('reminders', reminders, 1000);
await knex.raw(`select pg_notify('delivery_wakeup', 'reminders')`);
if (Date.now() > minuteStart) console.warn('inserting took longer than the head start; early lags include it');
await waitUntil(() => arrivals.size >= REMINDERS, 120_000);
const lags = [...arrivals.values()].map((a) => a.at - remindAt.get(a.taskId)).sort((a, b) => a - b);
const lag = {
  reminders: REMINDERS,
  received: lags.length,
  p50_ms: pct(lags, 50),
  p99_ms: pct(lags, 99),
  max_ms: lags.at(-1),
  invalid_signatures: invalid,
};
console.log('lag from remind_at to first webhook attempt:', lag);

saveResults('delivery', { throughput, lag });

await app.close();
await service.stop();
await orm.close();
receiver.closeAllConnections();
receiver.close();
await db.drop();
const pass = throughput.per_second >= 1000 && lag.p99_ms < 1000 && lag.received === REMINDERS;
console.log(pass ? 'targets met' : 'targets NOT met');
