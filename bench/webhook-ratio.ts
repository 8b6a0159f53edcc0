// The webhook row of ratios.ts: 1,000 reminders of one user, all due at the same instant T, fired
// by the all-in-one to one webhook endpoint, against the floor of a bare undici loop posting bodies of the same
// size to the same receiver with the same concurrency the delivery worker allows one endpoint. Not a test.
import type { ChildProcess } from 'node:child_process';
import { createHmac, createSecretKey, type KeyObject, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Agent, request } from 'undici';
import { type Api, type Json, pool } from './lib.ts';
import { cpuMsOf, freePort, startChild } from './processes.ts';

export interface Receiver {
  child: ChildProcess;
  url: string;
  reset(): Promise<unknown>;
  count(): Promise<number>;
  arrivals(): Promise<{ at_ms: number[]; event_ids: string[]; sizes: number[]; connections: number }>;
}

export interface WebhookFigure {
  title: string;
  armed_before_due: number;
  armed_ahead_ms: number;
  arrivals: number;
  unique_event_ids: number;
  duplicates: number;
  deliveries_per_s: number;
  first_lag_ms: number;
  p50_lag_ms: number;
  p99_lag_ms: number;
  last_lag_ms: number;
  body_bytes: number;
  connections: number;
  server_cpu_us_per_delivery: number | null;
  receiver_cpu_us_per_delivery: number | null;
  db_cpu_us_per_delivery?: number | null;
  valid: boolean;
}

export interface BareLoopFigure {
  title: string;
  concurrency: number;
  arrivals: number;
  deliveries_per_s: number;
  wall_ms: number;
}

/** The sends one endpoint gets in flight at once: the lane, the endpoint's and the user's caps (ADR 043). */
export function webhookConcurrency(env: NodeJS.ProcessEnv): number {
  return Math.min(
    Number(env.DELIVERY_CONCURRENCY ?? 64),
    Number(env.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT ?? 2),
    Number(env.WEBHOOK_MAX_IN_FLIGHT_PER_USER ?? 8),
  );
}

/** Starts the receiver as its own process (see webhook-receiver.ts). */
export async function startReceiver(): Promise<Receiver> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = await startChild(
    'webhook receiver',
    [fileURLToPath(new URL('./webhook-receiver.ts', import.meta.url)), String(port)],
    process.env,
    `${url}/count`,
  );
  const call = async (method: string, path: string) =>
    (await (await fetch(`${url}${path}`, { method })).json()) as Json;
  return {
    child,
    url,
    reset: () => call('DELETE', '/arrivals'),
    count: async () => (await call('GET', '/count')).count,
    arrivals: () => call('GET', '/arrivals'),
  };
}

/** Waits until `count` arrivals (or `timeoutMs` without a new one) and returns them. */
export async function collect(receiver: Receiver, count: number, timeoutMs: number) {
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

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
/** Deliveries per second from the first to the last arrival. */
export const ratePerS = (at: number[]) =>
  at.length < 2 ? 0 : Math.round(((at.length - 1) * 1000) / ((at.at(-1) as number) - (at[0] as number)));

/**
 * The all-in-one's figure: an endpoint on the receiver, `count` tasks whose reminders are due at one instant T
 * (seeded first, armed in the delivery service before T, checked in its table), then the arrivals after T.
 */
export async function measureReminderWebhooks({
  api,
  dbUrl,
  receiver,
  appPid,
  count,
  dbCpuMs,
}: {
  api: Api;
  dbUrl: string;
  receiver: Receiver;
  appPid: number | undefined;
  count: number;
  dbCpuMs?: (() => Promise<number>) | undefined;
}): Promise<WebhookFigure> {
  await receiver.reset();
  // One endpoint for every burst of a run (a second would double each burst's deliveries).
  const endpoints = await api<unknown[]>('GET', '/service/webhooks');
  if (endpoints.length === 0) {
    await api('POST', '/service/webhooks', { name: 'ratios receiver', url: `${receiver.url}/hooks` });
  }
  const create = (i: number) => ({ title: `ratios reminder ${i}`, duration_min: 5, reminder_channels: ['webhook'] });
  const createStarted = performance.now();
  const tasks = await pool([...Array(count).keys()], 20, (i) =>
    api<{ id: string }>('POST', '/service/tasks', { ...create(i), reminder_offset_min: 1 }),
  );
  // T leaves room for the patches (three times as long as the creates took: a fresh process's first burst needed
  // more than two) and for the events to reach the delivery service; a reminder armed after T would fire at once
  // and spoil the figure (INVALID).
  const createMs = performance.now() - createStarted;
  const dueAt = Math.ceil((Date.now() + Math.max(8_000, 3 * createMs + 5_000)) / 1000) * 1000;
  const slotStart = new Date(dueAt + 60_000);
  const slot = {
    chosen_slot_start: slotStart.toISOString(),
    chosen_slot_end: new Date(slotStart.getTime() + 300_000).toISOString(),
  };
  // The slot is manual scheduling (a patch); the reminder is due one minute (the offset) before it.
  await pool(tasks, 20, (task) => api('PATCH', `/service/tasks/${task.id}`, slot));
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  let armed = 0;
  try {
    while (Date.now() < dueAt - 500) {
      const { rows } = await db.query<{ n: number }>(
        `select count(*)::int as n from delivery.reminders where status = 'scheduled' and remind_at = $1`,
        [new Date(dueAt)],
      );
      armed = rows[0]?.n ?? 0;
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
  const perDelivery = (before: number | null, after: number | null) =>
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
export async function postSigned({
  url,
  agent,
  secret,
  body,
  eventId,
}: {
  url: string;
  agent: Agent;
  secret: string | KeyObject;
  body: string;
  eventId: string;
}): Promise<number> {
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
export async function measureBareLoop({
  receiver,
  count,
  concurrency,
  bodyBytes,
}: {
  receiver: Receiver;
  count: number;
  concurrency: number;
  bodyBytes: number;
}): Promise<BareLoopFigure> {
  await receiver.reset();
  const agent = new Agent({ connections: concurrency, keepAliveTimeout: 10_000 });
  const secret = createSecretKey(Buffer.from('whsec_ratios-floor')); // a KeyObject, as the sender keeps its keys
  const bodyOf = (eventId: string) => {
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
