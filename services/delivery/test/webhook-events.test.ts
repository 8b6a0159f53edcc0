import { ManualClock } from '@routinely/platform';
import { defined, type ReceivedWebhook, type TestUser, type WebhookReceiver } from '@routinely/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint, type Harness, scheduleDue, sqlRows, startWithReceiver } from './harness.js';

// Event types, per-endpoint filters, event ids across retries and requeues, the attempts log.
const clock = new ManualClock('2026-11-21T08:00:00.000Z');
let h: Harness;
let receiver: WebhookReceiver;
let secrets: string[] = [];
const plan: number[] = [];

beforeAll(async () => {
  const started = await startWithReceiver({ clock }, () => secrets);
  ({ h, receiver } = started);
  receiver.setResponder(() => ({ status: plan.shift() ?? 200 }));
  return started.close;
});

async function api(user: TestUser, method: 'GET' | 'POST' | 'PATCH', path: string, payload?: Record<string, unknown>) {
  return h.app.inject({ method, url: `/api/v1/service${path}`, headers: await h.tokens.auth(user), payload });
}

/** Fires one reminder of `user` on the webhook channel and makes the first try of every delivery. */
async function fireOnce(user: TestUser) {
  await scheduleDue(h, clock, user, { slotInMin: 1, reminder_channels: ['webhook'], reminder_offset_min: 0 });
  await h.workers.fireDueReminders();
  await h.workers.runDueDeliveries();
}

const receivedSince = (from: number) => receiver.received.slice(from);
const body = (w: ReceivedWebhook | undefined) => defined(w, 'a received webhook').json as Record<string, unknown>;

describe('event types', () => {
  it('lists every event type sent to webhooks with a description and the JSON Schema of its envelope', async () => {
    const reader = h.tokens.user({ permissions: ['SERVICE_WEBHOOK_READ'] });
    const res = await api(reader, 'GET', '/webhooks/event-types');
    expect(res.statusCode).toBe(200);
    const types = res.json() as { name: string; description: string; schema: Record<string, unknown> }[];
    expect(types.map((t) => t.name)).toEqual(['reminder.fired', 'webhook.test']);
    for (const t of types) {
      expect(t.description.length).toBeGreaterThan(20);
      expect(t.schema).toMatchObject({ type: 'object', properties: { event: { const: t.name } } });
      expect(t.schema.required).toEqual(expect.arrayContaining(['event', 'event_id', 'delivery_id', 'attempt']));
    }

    // A real reminder.fired carries exactly the documented fields.
    const owner = h.tokens.user();
    secrets = [(await createEndpoint(h, owner, { url: receiver.url })).secret];
    const from = receiver.received.length;
    await fireOnce(owner);
    const sent = body(receivedSince(from)[0]);
    const schema = defined(types[0]).schema as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(sent).sort()).toEqual(Object.keys(schema.properties).sort());
    expect(Object.keys(sent)).toEqual(expect.arrayContaining(schema.required));
    expect((await api(owner, 'GET', '/webhooks/event-types')).json()).toEqual(types);
  });
});

describe('per-endpoint event filters', () => {
  it('stores and answers events, defaults to every type, and creates deliveries only for subscribed endpoints', async () => {
    const owner = h.tokens.user();
    const all = await createEndpoint(h, owner, { url: `${receiver.url}/all` });
    const reminders = await createEndpoint(h, owner, { url: `${receiver.url}/reminders`, events: ['reminder.fired'] });
    const testsOnly = await createEndpoint(h, owner, { url: `${receiver.url}/tests`, events: ['webhook.test'] });
    secrets = [all.secret, reminders.secret, testsOnly.secret];
    expect(all.events).toEqual(['reminder.fired', 'webhook.test']);
    expect(reminders.events).toEqual(['reminder.fired']);
    expect((await api(owner, 'GET', `/webhooks/${testsOnly.id}`)).json().events).toEqual(['webhook.test']);

    const from = receiver.received.length;
    await fireOnce(owner);
    const endpointsWithDelivery = await sqlRows<{ endpoint_id: string }>(
      h.orm,
      "select endpoint_id from deliveries where user_id = ? and channel = 'webhook'",
      [owner.userId],
    );
    expect(endpointsWithDelivery.map((d) => d.endpoint_id).sort()).toEqual([all.id, reminders.id].sort());
    expect(
      receivedSince(from)
        .map((w) => w.path)
        .sort(),
    ).toEqual(['/all', '/reminders']);

    // Subscribing later takes effect at the next firing; null goes back to every type.
    const patched = await api(owner, 'PATCH', `/webhooks/${testsOnly.id}`, {
      events: ['webhook.test', 'reminder.fired', 'reminder.fired'],
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().events).toEqual(['reminder.fired', 'webhook.test']);
    const narrowed = await api(owner, 'PATCH', `/webhooks/${all.id}`, { events: ['webhook.test'] });
    expect(narrowed.json().events).toEqual(['webhook.test']);
    const next = receiver.received.length;
    await fireOnce(owner);
    expect(
      receivedSince(next)
        .map((w) => w.path)
        .sort(),
    ).toEqual(['/reminders', '/tests']);
    const reset = await api(owner, 'PATCH', `/webhooks/${all.id}`, { events: null });
    expect(reset.json().events).toEqual(['reminder.fired', 'webhook.test']);
    const [stored] = await sqlRows<{ events: string[] | null }>(
      h.orm,
      'select events from webhook_endpoints where id = ?',
      [all.id],
    );
    expect(stored?.events).toBeNull();

    // The test send goes whatever the endpoint subscribes to: it is an explicit request.
    const tested = await api(owner, 'POST', `/webhooks/${reminders.id}/test`);
    expect(tested.json()).toMatchObject({ ok: true, status_code: 200 });
  });

  it('answers 422 naming the element for an unknown type and the field for an empty list, on create and patch', async () => {
    const owner = h.tokens.user();
    const endpoint = await createEndpoint(h, owner, { url: receiver.url });
    const cases: [unknown, string][] = [
      [['task.done'], 'body.events.0'],
      [['reminder.fired', 'reminder.sent'], 'body.events.1'],
      [[], 'body.events'],
      ['reminder.fired', 'body.events'],
    ];
    for (const [events, loc] of cases) {
      const created = await api(owner, 'POST', '/webhooks', { name: 'x', url: receiver.url, events });
      const patched = await api(owner, 'PATCH', `/webhooks/${endpoint.id}`, { events });
      for (const res of [created, patched]) {
        expect(res.statusCode, JSON.stringify(events)).toBe(422);
        expect(res.json().errors.map((e: { loc: (string | number)[] }) => e.loc.join('.'))).toContain(loc);
      }
    }
    expect((await api(owner, 'GET', `/webhooks/${endpoint.id}`)).json().events).toEqual([
      'reminder.fired',
      'webhook.test',
    ]);
  });
});

describe('event ids and the attempts log', () => {
  it('logs each try with its status code and latency after a 500 then a 200, under one event id', async () => {
    const owner = h.tokens.user();
    const endpoint = await createEndpoint(h, owner, { url: receiver.url });
    secrets = [endpoint.secret];
    const from = receiver.received.length;
    plan.push(500, 200);
    await fireOnce(owner);
    const firstAt = clock.now().toISOString();
    clock.advance(5_000);
    await h.workers.runDueDeliveries();
    const tries = receivedSince(from);
    expect(tries.map((w) => w.status)).toEqual([500, 200]);

    const [listed] = (await api(owner, 'GET', '/reminders/deliveries')).json().items;
    const detail = (await api(owner, 'GET', `/reminders/deliveries/${listed.id}`)).json();
    expect(detail).toMatchObject({ status: 'sent', attempts: 2, last_status_code: 200 });
    expect(detail.attempts_log).toEqual([
      { attempt: 1, at: firstAt, status_code: 500, error: 'receiver answered 500', latency_ms: expect.any(Number) },
      { attempt: 2, at: clock.now().toISOString(), status_code: 200, error: null, latency_ms: expect.any(Number) },
    ]);
    for (const entry of detail.attempts_log) expect(entry.latency_ms).toBeGreaterThanOrEqual(0);

    // One event id: in the delivery, both envelopes and both headers.
    expect(detail.event_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(detail.payload.event_id).toBe(detail.event_id);
    for (const w of tries) {
      expect(w.headers['x-service-event-id']).toBe(detail.event_id);
      expect(body(w)).toMatchObject({ event_id: detail.event_id, delivery_id: detail.id });
    }

    // The endpoint's log lists the same tries, newest first.
    const log = (await api(owner, 'GET', `/webhooks/${endpoint.id}/attempts`)).json();
    expect(log).toMatchObject({ total: 2, limit: 50, offset: 0 });
    expect(log.items.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code])).toEqual([
      [2, 200],
      [1, 500],
    ]);
    expect(log.items[0]).toMatchObject({ delivery_id: detail.id, event: 'reminder.fired', event_id: detail.event_id });
  });

  it('max_attempts counts the retries after the first try', async () => {
    const owner = h.tokens.user();
    const once = await createEndpoint(h, owner, { url: `${receiver.url}/once`, max_attempts: 0 });
    const twice = await createEndpoint(h, owner, { url: `${receiver.url}/twice`, max_attempts: 1 });
    secrets = [once.secret, twice.secret];
    receiver.setResponder(() => ({ status: 503 }));
    try {
      await fireOnce(owner);
      clock.advance(5_000);
      await h.workers.runDueDeliveries();
      clock.advance(30_000);
      await h.workers.runDueDeliveries();
    } finally {
      receiver.setResponder(() => ({ status: plan.shift() ?? 200 }));
    }
    const items = (await api(owner, 'GET', '/reminders/deliveries')).json().items as {
      id: string;
      endpoint_id: string;
      status: string;
      attempts: number;
    }[];
    const byEndpoint = new Map(items.map((d) => [d.endpoint_id, d]));
    expect(byEndpoint.get(once.id)).toMatchObject({ status: 'dead', attempts: 1 });
    expect(byEndpoint.get(twice.id)).toMatchObject({ status: 'dead', attempts: 2 });
    const detail = (await api(owner, 'GET', `/reminders/deliveries/${byEndpoint.get(twice.id)?.id}`)).json();
    expect(detail.attempts_log.map((a: { status_code: number }) => a.status_code)).toEqual([503, 503]);
  });

  it('keeps the event id across redeliver and requeue while a requeue makes a new delivery id', async () => {
    const owner = h.tokens.user();
    const endpoint = await createEndpoint(h, owner, { url: receiver.url });
    secrets = [endpoint.secret];
    const from = receiver.received.length;
    plan.push(410);
    await fireOnce(owner);
    const [letter] = (await api(owner, 'GET', '/reminders/dlq')).json().items;
    const requeued = await api(owner, 'POST', `/reminders/dlq/${letter.id}/requeue`);
    expect(requeued.statusCode).toBe(200);
    await h.workers.runDueDeliveries();
    const redelivered = await api(owner, 'POST', `/reminders/deliveries/${requeued.json().id}/redeliver`);
    expect(redelivered.statusCode).toBe(200);
    await h.workers.runDueDeliveries();

    const [dead, fresh, again] = receivedSince(from);
    const eventId = body(dead).event_id;
    expect(typeof eventId).toBe('string');
    expect([dead, fresh, again].map((w) => w?.headers['x-service-event-id'])).toEqual([eventId, eventId, eventId]);
    expect([body(fresh).event_id, body(again).event_id]).toEqual([eventId, eventId]);
    expect(body(fresh).delivery_id).toBe(requeued.json().id);
    expect(body(fresh).delivery_id).not.toBe(letter.delivery_id);
    expect(body(again).delivery_id).toBe(body(fresh).delivery_id);
    expect(requeued.json().event_id).toBe(eventId);

    // Every delivery of one event, found by its id; the requeued one logs its own tries.
    const found = (await api(owner, 'GET', `/reminders/deliveries?event_id=${eventId}`)).json();
    expect(found.items.map((d: { id: string }) => d.id).sort()).toEqual(
      [letter.delivery_id, requeued.json().id].sort(),
    );
    const detail = (await api(owner, 'GET', `/reminders/deliveries/${requeued.json().id}`)).json();
    expect(
      detail.attempts_log.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code]),
    ).toEqual([
      [1, 200],
      [1, 200],
    ]);
  });
});

describe('test sends', () => {
  it('are recorded in the endpoint attempts log without a delivery, successes and failures alike', async () => {
    const owner = h.tokens.user();
    const endpoint = await createEndpoint(h, owner, { url: receiver.url });
    secrets = [endpoint.secret];
    const from = receiver.received.length;
    plan.push(200, 503);
    const ok = (await api(owner, 'POST', `/webhooks/${endpoint.id}/test`)).json();
    const failed = (await api(owner, 'POST', `/webhooks/${endpoint.id}/test`)).json();
    const [first, second] = receivedSince(from);
    expect(first?.headers['x-service-event-id']).toBe(ok.event_id);
    expect(body(first)).toMatchObject({ event: 'webhook.test', event_id: ok.event_id, attempt: 1 });
    expect(body(second).event_id).toBe(failed.event_id);
    expect(failed.event_id).not.toBe(ok.event_id);

    const log = (await api(owner, 'GET', `/webhooks/${endpoint.id}/attempts`)).json();
    expect(log.total).toBe(2);
    const byEvent = new Map(log.items.map((a: { event_id: string }) => [a.event_id, a]));
    expect(byEvent.get(ok.event_id)).toMatchObject({
      delivery_id: null,
      event: 'webhook.test',
      attempt: 1,
      status_code: 200,
      error: null,
      latency_ms: ok.latency_ms,
    });
    expect(byEvent.get(failed.event_id)).toMatchObject({
      delivery_id: null,
      status_code: 503,
      error: 'receiver answered 503',
    });
    const paged = (await api(owner, 'GET', `/webhooks/${endpoint.id}/attempts?limit=1&offset=1`)).json();
    expect(paged).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(paged.items).toHaveLength(1);
    // Still no delivery row and no retry budget used.
    const [count] = await sqlRows<{ n: number }>(h.orm, 'select count(*)::int as n from deliveries where user_id = ?', [
      owner.userId,
    ]);
    expect(count?.n).toBe(0);
    expect((await api(owner, 'GET', `/webhooks/${endpoint.id}`)).json().consecutive_failures).toBe(0);
  });
});
