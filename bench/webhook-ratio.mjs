// The webhook row of ratios.mjs: 1,000 reminders of one user, all due at the same instant T, fired
// by the all-in-one to one webhook endpoint, against the floor of a bare undici loop posting bodies of the same
// size to the same receiver with the same concurrency the delivery worker allows one endpoint. Not a test.
import { createHmac, createSecretKey, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cpuMsOf } from './proc-cpu.mjs';

const serviceRequire = createRequire(new URL('../services/delivery/package.json', import.meta.url));
const { Agent, request } = await import(pathToFileURL(serviceRequire.resolve('undici')).href);
const testkitRequire = createRequire(new URL('../packages/testkit/package.json', import.meta.url));
const { default: pg } = await import(pathToFileURL(testkitRequire.resolve('pg')).href);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The sends one endpoint gets in flight at once: the lane, the endpoint's and the user's caps (ADR 043). */
export function webhookConcurrency(env) {
  return Math.min(
    Number(env.DELIVERY_CONCURRENCY ?? 64),
    Number(env.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT ?? 2),
    Number(env.WEBHOOK_MAX_IN_FLIGHT_PER_USER ?? 8),
  );
}

/** Starts the receiver as its own process (see webhook-receiver.mjs); `startChild` is ratios.mjs's. */
export async function startReceiver({ startChild, freePort }) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = await startChild(
    'webhook receiver',
    [fileURLToPath(new URL('./webhook-receiver.mjs', import.meta.url)), String(port)],
    process.env,
    `${url}/count`,
  );
  const call = async (method, path) => (await fetch(`${url}${path}`, { method })).json();
  return {
    child,
    url,
    reset: () => call('DELETE', '/arrivals'),
    count: async () => (await call('GET', '/count')).count,
    arrivals: () => call('GET', '/arrivals'),
  };
}

/** Waits until `count` arrivals (or `timeoutMs` without a new one) and returns them. */
export async function collect(receiver, count, timeoutMs) {
  let seen = -1;
  let lastChange = Date.now();
  for (;;) {
    const n = await receiver.count();
    if (n >= count) break;
    if (n !== seen) [seen, lastChange] = [n, Date.now()];
    if (Date.now() - lastChange > timeoutMs) break;
    await sleep(100);
  }
  await sleep(300); // a duplicate would come right behind the last one
  return receiver.arrivals();
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
/** Deliveries per second from the first to the last arrival. */
export const ratePerS = (at) => (at.length < 2 ? 0 : Math.round(((at.length - 1) * 1000) / (at.at(-1) - at[0])));

/**
 * The all-in-one's figure: an endpoint on the receiver, `count` tasks whose reminders are due at one instant T
 * (seeded first, armed in the delivery service before T, checked in its table), then the arrivals after T.
 */
export async function measureReminderWebhooks({ api, dbUrl, receiver, appPid, count, createsPerS, dbCpuMs }) {
  await receiver.reset();
  // One endpoint for every burst of a run (a second would double each burst's deliveries).
  const endpoints = await api('GET', '/service/webhooks');
  if (endpoints.length === 0) {
    await api('POST', '/service/webhooks', { name: 'ratios receiver', url: `${receiver.url}/hooks` });
  }
  // T leaves room for the creates (at the rate the tree seeding showed, with margin) and for the events to
  // reach the delivery service; a reminder armed after T would fire at once and spoil the figure (INVALID).
  const seedMs = ((2 * count) / Math.max(createsPerS, 1)) * 1000; // a create and a patch per task
  const dueAt = Math.ceil((Date.now() + Math.max(8_000, 2 * seedMs + 5_000)) / 1000) * 1000;
  const slotStart = new Date(dueAt + 60_000);
  const slot = {
    chosen_slot_start: slotStart.toISOString(),
    chosen_slot_end: new Date(slotStart.getTime() + 300_000).toISOString(),
  };
  const create = (i) => ({ title: `ratios reminder ${i}`, duration_min: 5, reminder_channels: ['webhook'] });
  const { pool } = await import('./lib.mjs');
  // The slot is manual scheduling (a patch); the reminder is due one minute (the offset) before it.
  await pool([...Array(count).keys()], 20, async (i) => {
    const task = await api('POST', '/service/tasks', { ...create(i), reminder_offset_min: 1 });
    await api('PATCH', `/service/tasks/${task.id}`, slot);
  });
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  let armed = 0;
  try {
    while (Date.now() < dueAt - 500) {
      const { rows } = await db.query(
        `select count(*)::int as n from delivery.reminders where status = 'scheduled' and remind_at = $1`,
        [new Date(dueAt)],
      );
      armed = rows[0].n;
      if (armed >= count) break;
      await sleep(100);
    }
  } finally {
    await db.end();
  }
  const armedAheadMs = dueAt - Date.now();
  await sleep(Math.max(0, dueAt - Date.now() - 200));
  const cpuBefore = cpuMsOf(appPid);
  const receiverBefore = cpuMsOf(receiver.child.pid);
  const dbBefore = dbCpuMs ? await dbCpuMs() : null;
  const got = await collect(receiver, count, 15_000);
  const cpuAfter = cpuMsOf(appPid);
  const receiverAfter = cpuMsOf(receiver.child.pid);
  const dbAfter = dbCpuMs ? await dbCpuMs() : null;
  const perDelivery = (before, after) =>
    before === null || after === null || got.at_ms.length === 0
      ? null
      : Math.round(((after - before) * 1000) / got.at_ms.length);
  const at = [...got.at_ms].sort((a, b) => a - b);
  const lags = at.map((t) => t - dueAt);
  const unique = new Set(got.event_ids).size;
  return {
    title: `${count.toLocaleString('en')} reminder webhooks due at one instant`,
    armed_before_due: armed,
    armed_ahead_ms: armedAheadMs,
    arrivals: at.length,
    unique_event_ids: unique,
    duplicates: at.length - unique,
    deliveries_per_s: ratePerS(at),
    first_lag_ms: Math.round(lags[0] ?? Number.NaN),
    p50_lag_ms: Math.round(percentile(lags, 0.5) ?? Number.NaN),
    p99_lag_ms: Math.round(percentile(lags, 0.99) ?? Number.NaN),
    last_lag_ms: Math.round(lags.at(-1) ?? Number.NaN),
    body_bytes: got.sizes[0] ?? 0,
    connections: got.connections,
    server_cpu_us_per_delivery: perDelivery(cpuBefore, cpuAfter),
    // Both include the 300 ms the collection waits after the last arrival; the receiver's also its polling.
    receiver_cpu_us_per_delivery: perDelivery(receiverBefore, receiverAfter),
    ...(dbCpuMs ? { db_cpu_us_per_delivery: perDelivery(dbBefore, dbAfter) } : {}),
    valid: armed >= count && at.length === count && unique === count,
  };
}

/**
 * One webhook-shaped POST to the receiver: the body signed with HMAC-SHA256 (`secret`: a string or a KeyObject),
 * the answer read to its end; resolves to its status code.
 */
export async function postSigned({ url, agent, secret, body, eventId }) {
  const t = Math.floor(Date.now() / 1000);
  const signature = `t=${t},v1=${createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex')}`;
  const res = await request(`${url}/hooks`, {
    method: 'POST',
    body,
    dispatcher: agent,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Routinely/1.0',
      'x-service-signature': signature,
      'x-service-event-id': eventId,
    },
  });
  await res.body.dump();
  return res.statusCode;
}

/**
 * The floor: a bare undici loop, `concurrency` requests in flight over keep-alive connections, each a body of
 * `bodyBytes` signed like a webhook (HMAC-SHA256 per request), measured at the receiver like the figure.
 */
export async function measureBareLoop({ receiver, count, concurrency, bodyBytes }) {
  await receiver.reset();
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 10_000 });
  const secret = createSecretKey(Buffer.from('whsec_ratios-floor')); // a KeyObject, as the sender keeps its keys
  const bodyOf = (eventId) => {
    const base = JSON.stringify({ event: 'reminder.fired', event_id: eventId, delivery_id: randomUUID() });
    return `${base.slice(0, -1)},"pad":"${'x'.repeat(Math.max(0, bodyBytes - base.length - 9))}"}`;
  };
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        const eventId = randomUUID();
        await postSigned({ url: receiver.url, agent, secret, body: bodyOf(eventId), eventId });
      }
    }),
  );
  const wallMs = performance.now() - started;
  await agent.close();
  const got = await collect(receiver, count, 5_000);
  const at = [...got.at_ms].sort((a, b) => a - b);
  return {
    title: 'bare undici loop',
    concurrency,
    arrivals: at.length,
    deliveries_per_s: ratePerS(at),
    wall_ms: wallMs,
  };
}
