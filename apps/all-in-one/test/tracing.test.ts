import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { type Orm, openOrm, Sql } from '@routinely/db';
import {
  calendarEvents,
  defineConsumer,
  type EventEnvelope,
  eventEntities,
  JetStreamTransport,
  startConsumer,
} from '@routinely/events';
import { startTracing, type Tracing } from '@routinely/runtime';
import { quietLogger, requireEnv, uniqueName, waitFor } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, register, startTestAllInOne } from './start.js';

const exporter = new InMemorySpanExporter();
let tracing: Tracing | undefined;
let target: Awaited<ReturnType<typeof startTestAllInOne>>;
let consumerTransport: JetStreamTransport;
let calendarOrm: Orm;

beforeAll(async () => {
  // The SDK set up the way the host entry does, exporting to memory instead of OTLP.
  tracing = await startTracing({
    env: {},
    serviceName: 'routinely',
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  target = await startTestAllInOne();
  consumerTransport = await JetStreamTransport.connect(requireEnv('NATS_URL'), quietLogger(), target.namespace);
  // A consumer of the calendar's events on the calendar schema's own inbox, as a subscribing service would run.
  calendarOrm = await openOrm(
    target.databaseUrl,
    { schema: 'calendar', entities: eventEntities, migrations: [] },
    { migrate: false },
  );
});
afterAll(async () => {
  await consumerTransport?.deleteStreams();
  await consumerTransport?.close();
  await calendarOrm?.close();
  await target?.close();
  await tracing?.shutdown();
});

const traceOf = (span: ReadableSpan) => span.spanContext().traceId;
const spanIdOf = (traceparent: string) => traceparent.split('-')[2];

describe('one trace across HTTP, gRPC and events', () => {
  it('a calendar share by email: the request, its user lookup in auth and the event it publishes', async () => {
    const baseUrl = target.running.url;
    const owner = await register(baseUrl);
    const friend = await register(baseUrl, owner);
    const calendar = await call(baseUrl, 'POST', '/api/v1/calendars', {
      token: owner.token,
      body: { name: 'Family', timezone: 'Europe/Berlin' },
    });
    expect(calendar.status).toBe(201);
    exporter.reset();

    // The caller's own trace: the request continues it.
    const callerTrace = 'a3ce929d0e0e47364bf92f3577b34da6';
    const share = await call(baseUrl, 'POST', `/api/v1/calendars/${String(calendar.json.id)}/share`, {
      token: owner.token,
      body: { email: friend.email, permission: 'view' },
      headers: { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` },
    });
    expect(share.status).toBe(201);

    const spans = () => exporter.getFinishedSpans();
    const request = await waitFor(() => spans().find((s) => s.name === 'POST /api/v1/calendars/:calendar_id/share'), {
      what: 'the request span',
    });
    expect(traceOf(request)).toBe(callerTrace);
    expect(request.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(request.attributes['http.response.status_code']).toBe(201);

    // gRPC: the client span is a child of the request, the auth service's server span a child of the client.
    const lookups = spans().filter((s) => s.name === 'auth.v1.AuthService/LookupUser' && traceOf(s) === callerTrace);
    const client = lookups.find((s) => s.kind === 2 /* CLIENT */);
    const server = lookups.find((s) => s.kind === 1 /* SERVER */);
    expect(client?.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(server?.parentSpanContext?.spanId).toBe(client?.spanContext().spanId);

    // The event: its outbox envelope carries the request's trace...
    const { rows } = await calendarOrm.em
      .getKnex()
      .raw<{ rows: { payload: EventEnvelope }[] }>(
        `select payload from outbox where subject = 'calendar.sharing.granted' and payload->'data'->'sharing'->>'id' = ?`,
        [String(share.json.id)],
      );
    const envelope = rows[0]?.payload;
    expect(envelope?.traceparent).toMatch(new RegExp(`^00-${callerTrace}-[0-9a-f]{16}-01$`));
    expect(spanIdOf(envelope?.traceparent ?? '')).toBe(request.spanContext().spanId);

    // ...and a consumer of it, reading it from JetStream, continues that trace in its own span.
    const handled: EventEnvelope[] = [];
    const durable = uniqueName('trace_test');
    const subscription = await startConsumer(
      defineConsumer({
        durable,
        events: [calendarEvents.sharingGranted],
        policy: { ackWaitMs: 30_000, maxDeliver: 3, backoffMs: [100] },
        handle: async (_sql, event) => {
          handled.push(event);
        },
      }),
      { db: Sql.of(calendarOrm), transport: consumerTransport, logger: quietLogger() },
    );
    try {
      await waitFor(() => handled.find((e) => e.id === envelope?.id), { what: 'the consumer' });
      const consumer = await waitFor(
        () =>
          spans().find(
            (s) =>
              s.name === 'process calendar.sharing.granted' && s.attributes['messaging.message.id'] === envelope?.id,
          ),
        { what: 'the consumer span' },
      );
      expect(traceOf(consumer)).toBe(callerTrace);
      expect(consumer.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
      expect(consumer.attributes['messaging.consumer.group.name']).toBe(durable);
    } finally {
      await subscription.stop();
    }
  });

  it('a request without a traceparent starts its own trace; probes are not traced', async () => {
    exporter.reset();
    expect((await call(target.running.url, 'GET', '/readyz')).status).toBe(200);
    expect((await call(target.running.url, 'GET', '/api/v1/openapi.json')).status).toBe(200);
    const span = await waitFor(() => exporter.getFinishedSpans().find((s) => s.name === 'GET /api/v1/openapi.json'), {
      what: 'the request span',
    });
    expect(span.parentSpanContext).toBeUndefined();
    expect(traceOf(span)).toMatch(/^[0-9a-f]{32}$/);
    expect(exporter.getFinishedSpans().filter((s) => s.name.includes('/readyz'))).toEqual([]);
  });
});
