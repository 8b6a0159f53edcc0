import { openOrm, Sql } from '@routinely/db';
import {
  defineConsumer,
  InProcessTransport,
  makeEvent,
  replayDeadLetters,
  schedulerEvents,
  startConsumer,
  taskEvents,
} from '@routinely/events';
import { createLogger } from '@routinely/platform';
import { metricSample, quietLogger } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, register, startTestAllInOne } from './start.js';

let target: Awaited<ReturnType<typeof startTestAllInOne>>;
let baseUrl: string;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  // The host's real logger, writing into memory, so the request lines can be read back.
  const logger = createLogger({
    level: 'info',
    destination: { write: (line: string) => void logLines.push(JSON.parse(line)) },
  });
  target = await startTestAllInOne({ logger });
  baseUrl = target.running.url;
});
afterAll(() => target?.close());

async function scrape() {
  const response = await fetch(`${baseUrl}/metrics`);
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('GET /metrics on the all-in-one', () => {
  it('counts real requests by route template, method and status, with latency histograms', async () => {
    const owner = await register(baseUrl);
    const registered = 'routinely_http_requests_total{method="POST",route="/api/v1/auth/register",status="201"}';
    const before = metricSample((await scrape()).text, registered);
    expect(before).toBeGreaterThanOrEqual(1);

    await register(baseUrl);
    const created = await call(baseUrl, 'POST', '/api/v1/calendars', {
      token: owner.token,
      body: { name: 'Work', timezone: 'Europe/Berlin' },
    });
    expect(created.status).toBe(201);
    const missing = await call(baseUrl, 'GET', `/v1/calendars/${crypto.randomUUID()}`, { token: owner.token });
    expect(missing.status).toBe(404);
    expect((await call(baseUrl, 'GET', '/api/v1/no-such-route')).status).toBe(404);

    const { status, headers, text } = await scrape();
    expect(status).toBe(200);
    expect(headers.get('content-type')).toContain('text/plain');
    expect(metricSample(text, registered)).toBe((before ?? 0) + 1);
    expect(
      metricSample(text, 'routinely_http_requests_total{method="POST",route="/api/v1/calendars",status="201"}'),
    ).toBeGreaterThanOrEqual(1);
    // The template, not the id, and the /v1 alias as its own route.
    expect(
      metricSample(text, 'routinely_http_requests_total{method="GET",route="/v1/calendars/:calendar_id",status="404"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(
      metricSample(text, 'routinely_http_requests_total{method="GET",route="unmatched",status="404"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('no-such-route');
    expect(
      metricSample(
        text,
        'routinely_http_request_duration_seconds_count{method="POST",route="/api/v1/calendars",status="201"}',
      ),
    ).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(
      /routinely_http_request_duration_seconds_bucket\{le="0\.005",method="POST",route="\/api\/v1\/calendars",status="201"\}/,
    );
  });

  it('reports outbox lag and pool usage per service, the delivery DLQ size and process metrics', async () => {
    const { text } = await scrape();
    for (const service of ['auth', 'calendar', 'scheduler', 'task', 'delivery']) {
      expect(metricSample(text, `routinely_outbox_lag_seconds{service="${service}"}`)).toBeGreaterThanOrEqual(0);
      expect(metricSample(text, `routinely_outbox_pending_events{service="${service}"}`)).toBeGreaterThanOrEqual(0);
      expect(
        metricSample(text, `routinely_db_pool_connections{service="${service}",state="used"}`),
      ).toBeGreaterThanOrEqual(0);
      expect(
        metricSample(text, `routinely_db_pool_connections{service="${service}",state="free"}`),
      ).toBeGreaterThanOrEqual(0);
      expect(metricSample(text, `routinely_db_pool_pending_acquires{service="${service}"}`)).toBe(0);
    }
    // Every worker defined with defineWorker reports the age of its last pass (running ones: 0 or more).
    for (const [service, worker] of [
      ['task', 'import-worker'],
      ['task', 'routine-worker'],
      ['scheduler', 'schedule-runs'],
      ['scheduler', 'schedule-conflicts'],
      ['delivery', 'reminders'],
      ['delivery', 'deliveries'],
      ['integration', 'sync'],
      ['integration', 'channels'],
    ]) {
      expect(
        metricSample(text, `routinely_worker_last_pass_age_seconds{service="${service}",worker="${worker}"}`),
      ).toBeGreaterThanOrEqual(0);
    }
    expect(metricSample(text, 'routinely_delivery_dead_letters')).toBe(0);
    expect(text).toContain('# TYPE routinely_delivery_attempts_total counter');
    expect(text).toContain('# TYPE routinely_reminder_fire_lag_seconds histogram');
    expect(metricSample(text, 'routinely_process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(text).toContain('routinely_nodejs_eventloop_lag_seconds');
  });

  it('is outside the API: not rate limited, not documented, no token needed', async () => {
    const { headers } = await scrape();
    expect(headers.get('ratelimit-limit')).toBeNull();
    const openapi = await call(baseUrl, 'GET', '/api/v1/openapi.json');
    expect(openapi.status).toBe(200);
    expect(Object.keys(openapi.json.paths as object)).not.toContain('/metrics');
    expect((await call(baseUrl, 'GET', '/api/v1/metrics')).status).toBe(404);
  });

  it('writes one request line with route, user and tenant, and never the token', async () => {
    const user = await register(baseUrl);
    logLines.length = 0;
    const calendars = await call(baseUrl, 'GET', '/api/v1/calendars', { token: user.token });
    expect(calendars.status).toBe(200);
    await scrape();
    const requests = logLines.filter((l) => l.msg === 'request completed');
    expect(requests).toHaveLength(1); // the scrape's own line stays below info
    expect(requests[0]).toMatchObject({
      level: 30,
      method: 'GET',
      route: '/api/v1/calendars',
      status: 200,
      user_id: user.id,
      tenant_id: user.tenantId,
      reqId: calendars.headers.get('x-request-id'),
    });
    expect(typeof requests[0]?.duration_ms).toBe('number');
    expect(JSON.stringify(logLines)).not.toContain(user.token);
  });
  it("counts a consumer's dead letters by consumer and type, and the health page is degraded while one is recent", async () => {
    // A consumer of the task schema whose handler fails every attempt (a broken consumer; ADR 029).
    const orm = await openOrm(target.databaseUrl, { schema: 'task', entities: [], migrations: [] }, { migrate: false });
    const transport = new InProcessTransport();
    const broken = defineConsumer({
      durable: 'task.metrics-probe',
      events: [taskEvents.taskDeleted],
      policy: { ackWaitMs: 1_000, maxDeliver: 2, backoffMs: [1] },
      handle: async () => {
        throw new Error('cannot apply');
      },
    });
    const subscription = await startConsumer(broken, { db: Sql.of(orm), transport, logger: quietLogger() });
    try {
      const event = makeEvent(
        taskEvents.taskDeleted,
        { tenantId: crypto.randomUUID(), userId: crypto.randomUUID(), at: new Date() },
        {
          task: {
            id: crypto.randomUUID(),
            tenant_id: 't',
            user_id: 'u',
            parent_task_id: null,
            title: 'x',
            description: null,
            status: 'pending',
            priority: 3,
            duration_min: 30,
            tags: [],
            deadline_at: null,
            chosen_slot_start: null,
            chosen_slot_end: null,
            reminder_channels: [],
            reminder_offset_min: 10,
            updated_at: new Date().toISOString(),
            version: 1,
          },
        },
      );
      await transport.publish(event);
      await transport.whenHandled(event.id).catch(() => {});
      const series = 'routinely_events_dead_lettered_total{consumer="task.metrics-probe",type="task.task.deleted"}';
      expect(metricSample((await scrape()).text, series)).toBe(1);
      const admin = await register(baseUrl);
      const health = await call(baseUrl, 'GET', '/api/v1/service/admin/health', { token: admin.token });
      expect(health.status).toBe(200);
      expect(health.json).toMatchObject({
        status: 'degraded',
        components: {
          event_consumers: {
            status: 'degraded',
            dead_letters: [
              expect.objectContaining({ consumer: 'task.metrics-probe', type: 'task.task.deleted', count: 1 }),
            ],
          },
        },
      });
    } finally {
      await subscription.stop();
      await orm.close();
    }
  });

  it("a replayed scheduler dead letter clears the task service's copy, so the health page is ok again at once", async () => {
    // A scheduler consumer that fails until its cause is fixed; its dead letter reaches the task service's copy
    // as the scheduler's own consumers' do (scheduler.consumer.dead_lettered, ADR 029).
    const orm = await openOrm(
      target.databaseUrl,
      { schema: 'scheduler', entities: [], migrations: [] },
      { migrate: false },
    );
    const transport = new InProcessTransport();
    let failing = true;
    const probe = defineConsumer({
      durable: 'scheduler.replay-probe',
      events: [schedulerEvents.usageDailyChanged],
      policy: { ackWaitMs: 1_000, maxDeliver: 1, backoffMs: [] },
      handle: async () => {
        if (failing) throw new Error('cannot apply yet');
      },
    });
    const deps = {
      db: Sql.of(orm),
      transport,
      logger: quietLogger(),
      deadLettered: schedulerEvents.consumerDeadLettered,
    };
    const subscription = await startConsumer(probe, deps);
    const admin = await register(baseUrl);
    const probeLetters = async () => {
      const health = await call(baseUrl, 'GET', '/api/v1/service/admin/health', { token: admin.token });
      expect(health.status).toBe(200);
      const consumers = (health.json as { components: { event_consumers: { dead_letters: { consumer: string }[] } } })
        .components.event_consumers;
      return consumers.dead_letters.filter((l) => l.consumer === 'scheduler.replay-probe');
    };
    try {
      const event = makeEvent(
        schedulerEvents.usageDailyChanged,
        { tenantId: admin.tenantId, userId: admin.id, at: new Date() },
        { date: '2026-11-29', daily_usd: 0.5 },
      );
      await transport.publish(event);
      await transport.whenHandled(event.id).catch(() => {});
      await vi.waitFor(async () => expect(await probeLetters()).toHaveLength(1), { timeout: 10_000, interval: 100 });

      failing = false;
      const replay = await replayDeadLetters(Sql.of(orm), probe, {
        replayed: schedulerEvents.consumerDeadLettersReplayed,
      });
      expect(replay.failed).toEqual([]);
      expect(replay.replayed).toHaveLength(1);
      await vi.waitFor(async () => expect(await probeLetters()).toEqual([]), { timeout: 10_000, interval: 100 });
    } finally {
      await subscription.stop();
      await orm.close();
    }
  });
});
