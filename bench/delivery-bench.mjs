#!/usr/bin/env node
// Delivery service benchmark (not a test): builds the service directly against DATABASE_URL, on a scratch
// database, with a loopback receiver that verifies every signature.
//   1. signed webhook deliveries per second (target >= 1,000/s)
//   2. lag from remind_at to the first webhook attempt for 10,000 reminders due within one minute
//      (target p99 < 1 s)
// Needs a build first: pnpm --filter "@routinely/delivery..." build && pnpm --filter @routinely/testkit build
// Usage: node bench/delivery-bench.mjs [--deliveries 5000] [--reminders 10000]
import { randomUUID } from 'node:crypto';
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
const { buildTestHttpApp, createTestDatabase, TestTokens, WebhookReceiver } = await import(
  pathToFileURL(testkitReq.resolve('@routinely/testkit')).href
);
const { saveResults } = await import('./lib.mjs');
const { buildService, configSchema, dbConfig } = await import(
  new URL('../services/delivery/dist/index.js', import.meta.url).href
);

// --- scratch database and a loopback receiver that verifies every signature (the testkit's) -----------------
const db = await createTestDatabase();
let secret = '';
const receiver = await WebhookReceiver.start({ secrets: () => [secret] });
const receiverUrl = `${receiver.url}/hook`;
const invalidSignatures = () => receiver.received.filter((w) => !w.verified).length;
/** First arrival per delivery id among the webhooks received since index `from`. */
function firstArrivals(from) {
  const arrivals = new Map();
  for (const w of receiver.received.slice(from)) {
    const id = String(w.headers['x-service-delivery-id']);
    if (!arrivals.has(id)) arrivals.set(id, { at: w.receivedAtMs, taskId: w.json?.task?.id });
  }
  return arrivals;
}

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
  invalid_signatures: invalidSignatures(),
};
console.log('signed deliveries to a loopback receiver:', throughput);

// --- 2. firing lag ----------------------------------------------------------------------------------------
const secondPhaseFrom = receiver.received.length;
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
await waitUntil(() => firstArrivals(secondPhaseFrom).size >= REMINDERS, 120_000);
const lags = [...firstArrivals(secondPhaseFrom).values()]
  .map((a) => a.at - remindAt.get(a.taskId))
  .sort((a, b) => a - b);
const lag = {
  reminders: REMINDERS,
  received: lags.length,
  p50_ms: pct(lags, 50),
  p99_ms: pct(lags, 99),
  max_ms: lags.at(-1),
  invalid_signatures: invalidSignatures(),
};
console.log('lag from remind_at to first webhook attempt:', lag);

saveResults('delivery', { throughput, lag });

await app.close();
await service.stop();
await orm.close();
await receiver.close();
await db.drop();
const pass = throughput.per_second >= 1000 && lag.p99_ms < 1000 && lag.received === REMINDERS;
console.log(pass ? 'targets met' : 'targets NOT met');
