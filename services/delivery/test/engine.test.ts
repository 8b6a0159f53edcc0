import { ManualClock } from '@routinely/platform';
import type { ReceivedWebhook, TestUser, WebhookReceiver } from '@routinely/testkit';
import { defined } from '@routinely/testkit';
import Stripe from 'stripe';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEndpoint, type Harness, scheduleDue, sqlRows, startHarness, startWithReceiver } from './harness.js';

const stripe = new Stripe('sk_test_not_used');
const clock = new ManualClock('2026-11-21T08:00:00.000Z');
let h: Harness;
let receiver: WebhookReceiver;
let secrets: string[] = [];

beforeAll(async () => {
  const started = await startWithReceiver({ clock }, () => secrets);
  ({ h, receiver } = started);
  return started.close;
});
beforeEach(() => receiver.setResponder(() => ({ status: 200 })));

interface DeliveryDb {
  id: string;
  status: string;
  attempts: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  endpoint_id: string | null;
}

/** A user with one endpoint whose reminder has just fired: returns its webhook delivery id. */
async function firedWebhook(user: TestUser, endpointId: string): Promise<string> {
  const [task] = await scheduleDue(h, clock, user, { slotInMin: 20, reminder_channels: ['webhook'] });
  expect(await h.workers.fireDueReminders()).toBe(1);
  const rows = await sqlRows<{ id: string }>(
    h.orm,
    `select id from deliveries where endpoint_id = ? and payload->'task'->>'id' = ?`,
    [endpointId, defined(task).id],
  );
  expect(rows).toHaveLength(1);
  return defined(rows[0]).id;
}

const delivery = async (id: string) =>
  defined((await sqlRows<DeliveryDb>(h.orm, 'select * from deliveries where id = ?', [id]))[0]);
const hitsFor = (id: string) => receiver.received.filter((r) => r.headers['x-service-delivery-id'] === id);

/** Runs the worker at each next_attempt_at until the delivery settles; returns the waits between tries. */
async function walk(id: string): Promise<number[]> {
  const waits: number[] = [];
  await h.workers.runDueDeliveries();
  for (let d = await delivery(id); d.status === 'failed'; d = await delivery(id)) {
    const wait = new Date(defined(d.next_attempt_at)).getTime() - clock.now().getTime();
    waits.push(wait);
    clock.advance(wait - 1);
    expect(await h.workers.runDueDeliveries()).toBe(0); // not a millisecond early
    clock.advance(1);
    expect(await h.workers.runDueDeliveries()).toBe(1);
  }
  return waits;
}

const S = 1000;
const M = 60 * S;
const H = 60 * M;

describe('retry schedule with an injected clock', () => {
  it.each([
    [0, []],
    [4, [5 * S, 30 * S, 5 * M, 1 * H]],
    [8, [5 * S, 30 * S, 5 * M, 1 * H, 6 * H, 12 * H, 24 * H, 24 * H]],
  ])('max_attempts %i: waits %j, then the dead-letter queue', async (maxAttempts, expected) => {
    const user = h.tokens.user();
    const endpoint = await createEndpoint(h, user, { url: receiver.url, max_attempts: maxAttempts });
    secrets = [endpoint.secret];
    receiver.setResponder(() => ({ status: 500 }));
    const id = await firedWebhook(user, endpoint.id);
    expect(await walk(id)).toEqual(expected);
    const d = await delivery(id);
    expect(d).toMatchObject({ status: 'dead', attempts: maxAttempts + 1, last_status_code: 500 });
    const hits = hitsFor(id);
    expect(hits).toHaveLength(maxAttempts + 1);
    expect(hits.map((x) => (x.json as { attempt: number }).attempt)).toEqual(hits.map((_, i) => i + 1));
    expect(hits.every((x) => x.verified)).toBe(true);
    // A fresh t on every try, each inside the replay window of its own send.
    expect(new Set(hits.map((x) => x.headers['x-service-timestamp'])).size).toBe(hits.length);
    const dlq = await sqlRows<{ reason: string; attempts: number }>(
      h.orm,
      'select reason, attempts from dead_letters where delivery_id = ?',
      [id],
    );
    expect(dlq).toEqual([{ reason: 'retries exhausted: receiver answered 500', attempts: maxAttempts + 1 }]);
  });
});

describe('classification table against a real loopback receiver', () => {
  it.each([
    [200, 'sent'],
    [202, 'sent'],
    [204, 'sent'],
    [429, 'failed'],
    [500, 'failed'],
    [503, 'failed'],
    ...[400, 401, 403, 404, 405, 406, 409, 410, 413, 414, 415, 418, 422].map((s) => [s, 'dead']),
  ] as [number, string][])('%i -> %s', async (status, expected) => {
    const user = h.tokens.user();
    const endpoint = await createEndpoint(h, user, { url: receiver.url, max_attempts: 1 });
    secrets = [endpoint.secret];
    receiver.setResponder(() => ({ status }));
    const id = await firedWebhook(user, endpoint.id);
    await h.workers.runDueDeliveries();
    expect(await delivery(id)).toMatchObject({ status: expected, attempts: 1, last_status_code: status });
    const dlq = await sqlRows(h.orm, 'select 1 from dead_letters where delivery_id = ?', [id]);
    expect(dlq).toHaveLength(expected === 'dead' ? 1 : 0);
    if (expected === 'failed') {
      receiver.setResponder(() => ({ status: 200 }));
      clock.advance(5_000);
      await h.workers.runDueDeliveries();
      expect(await delivery(id)).toMatchObject({ status: 'sent', attempts: 2 });
    }
  });

  it.each([301, 302, 303, 307, 308])('%i is followed once and classified again', async (status) => {
    const user = h.tokens.user();
    const endpoint = await createEndpoint(h, user, { url: `${receiver.url}/old` });
    secrets = [endpoint.secret];
    receiver.setResponder((w) => (w.path === '/old' ? { status, headers: { location: '/new' } } : { status: 200 }));
    const id = await firedWebhook(user, endpoint.id);
    await h.workers.runDueDeliveries();
    expect(await delivery(id)).toMatchObject({ status: 'sent', attempts: 1, last_status_code: 200 });
    expect(hitsFor(id).map((x) => x.path)).toEqual(['/old', '/new']);
    expect(hitsFor(id).every((x) => x.verified)).toBe(true);
  });

  it('a redirect to a 5xx is retried; a second redirect is a hard failure', async () => {
    const user = h.tokens.user();
    const endpoint = await createEndpoint(h, user, { url: `${receiver.url}/a` });
    secrets = [endpoint.secret];
    receiver.setResponder((w) => (w.path === '/a' ? { status: 307, headers: { location: '/b' } } : { status: 502 }));
    const retried = await firedWebhook(user, endpoint.id);
    await h.workers.runDueDeliveries();
    expect(await delivery(retried)).toMatchObject({ status: 'failed', last_status_code: 502 });
    receiver.setResponder((w) => ({ status: 302, headers: { location: w.path === '/a' ? '/b' : '/c' } }));
    clock.advance(5_000);
    await h.workers.runDueDeliveries();
    expect(await delivery(retried)).toMatchObject({ status: 'dead', last_error: 'redirected more than once' });
  });

  it('a timeout and a refused connection are retried', async () => {
    const user = h.tokens.user();
    const slow = await createEndpoint(h, user, { url: `${receiver.url}/slow` });
    const closed = await createEndpoint(h, user, { url: 'http://127.0.0.1:9/refused' });
    secrets = [slow.secret];
    receiver.setResponder(() => ({ status: 200, delayMs: 3_000 }));
    await scheduleDue(h, clock, user, { slotInMin: 20, reminder_channels: ['webhook'] });
    await h.workers.fireDueReminders();
    await h.workers.runDueDeliveries();
    const rows = await sqlRows<DeliveryDb>(h.orm, 'select * from deliveries where endpoint_id in (?, ?)', [
      slow.id,
      closed.id,
    ]);
    const byEndpoint = Object.fromEntries(rows.map((r) => [r.endpoint_id, r]));
    expect(byEndpoint[slow.id]).toMatchObject({
      status: 'failed',
      attempts: 1,
      last_error: 'timeout',
      last_status_code: null,
    });
    expect(byEndpoint[closed.id]).toMatchObject({ status: 'failed', attempts: 1, last_status_code: null });
    expect(byEndpoint[closed.id]?.last_error).toMatch(/connection error/);
  });
});

describe('delivery identity, secrets and endpoint health', () => {
  it('keeps X-Service-Delivery-Id across retries; rotation signs new deliveries with the new secret while retries keep the old', async () => {
    const user = h.tokens.user();
    const endpoint = await createEndpoint(h, user, { url: receiver.url });
    const oldSecret = endpoint.secret;
    receiver.setResponder(() => ({ status: 500 }));
    secrets = [oldSecret];
    const first = await firedWebhook(user, endpoint.id);
    await h.workers.runDueDeliveries();
    const rotated = await h.app.inject({
      method: 'POST',
      url: `/api/v1/service/webhooks/${endpoint.id}/rotate-secret`,
      headers: await h.tokens.auth(user),
    });
    const newSecret = rotated.json().secret as string;
    secrets = [oldSecret, newSecret];
    receiver.setResponder(() => ({ status: 200 }));
    const second = await firedWebhook(user, endpoint.id); // also makes the first one due again (10 min later)
    await h.workers.runDueDeliveries();
    const verifiesWith = (w: ReceivedWebhook, s: string) => {
      try {
        stripe.webhooks.constructEvent(
          w.rawBody,
          String(w.headers['x-service-signature']),
          s,
          300,
          undefined,
          clock.now().getTime() / 1000,
        );
        return true;
      } catch {
        return false;
      }
    };
    const firstHits = hitsFor(first);
    expect(firstHits).toHaveLength(2);
    expect(firstHits.every((w) => verifiesWith(w, oldSecret) && !verifiesWith(w, newSecret))).toBe(true);
    expect(firstHits.map((w) => (w.json as { delivery_id: string }).delivery_id)).toEqual([first, first]);
    const [secondHit] = hitsFor(second);
    expect(verifiesWith(defined(secondHit), newSecret)).toBe(true);
    expect(verifiesWith(defined(secondHit), oldSecret)).toBe(false);
    expect((await delivery(first)).status).toBe('sent');
  });

  it('counts consecutive failed deliveries per endpoint and resets on success', async () => {
    const user = h.tokens.user();
    const endpoint = await createEndpoint(h, user, { url: receiver.url, max_attempts: 0 });
    secrets = [endpoint.secret];
    const failures = async () =>
      (
        await sqlRows<{ n: number }>(h.orm, 'select consecutive_failures as n from webhook_endpoints where id = ?', [
          endpoint.id,
        ])
      )[0]?.n;
    receiver.setResponder(() => ({ status: 500 }));
    for (const expected of [1, 2]) {
      await firedWebhook(user, endpoint.id);
      await h.workers.runDueDeliveries();
      expect(await failures()).toBe(expected);
    }
    receiver.setResponder(() => ({ status: 200 }));
    await firedWebhook(user, endpoint.id);
    await h.workers.runDueDeliveries();
    expect(await failures()).toBe(0);
  });
});

describe('workers that scale and survive', () => {
  it('a worker killed mid-send loses nothing: the lease expires and the same attempt completes once, same delivery id', async () => {
    const user = h.tokens.user();
    const endpoint = await createEndpoint(h, user, { url: receiver.url });
    secrets = [endpoint.secret];
    receiver.setResponder(() => ({ status: 200, delayMs: 1_000 }));
    const id = await firedWebhook(user, endpoint.id);
    const running = h.workers.runDueDeliveries();
    await receiver.waitFor(receiver.received.length + 1);
    h.workers.deliveries.kill(); // the process dies before it can record the outcome
    await running;
    h.workers.deliveries.revive();
    expect(await delivery(id)).toMatchObject({ status: 'pending', attempts: 0 });
    const other = await startHarness({ clock, db: h.db });
    try {
      receiver.setResponder(() => ({ status: 200 }));
      expect(await other.workers.runDueDeliveries()).toBe(0); // still leased
      clock.advance(60_000);
      expect(await other.workers.runDueDeliveries()).toBe(1);
      expect(await delivery(id)).toMatchObject({ status: 'sent', attempts: 1 });
      const hits = hitsFor(id);
      expect(hits).toHaveLength(2);
      expect(hits.map((w) => (w.json as { attempt: number }).attempt)).toEqual([1, 1]);
      expect(await other.workers.runDueDeliveries()).toBe(0);
      expect(hitsFor(id)).toHaveLength(2);
    } finally {
      await other.close();
    }
  });

  it('two workers draining the same queue never send the same delivery twice', async () => {
    const user = h.tokens.user();
    const endpoint = await createEndpoint(h, user, { url: receiver.url });
    secrets = [endpoint.secret];
    await scheduleDue(h, clock, user, { slotInMin: 20, reminder_channels: ['webhook'] }, 40);
    const other = await startHarness({ clock, db: h.db, env: { DELIVERY_BATCH_SIZE: '7' } });
    try {
      const fired = await Promise.all([
        h.workers.fireDueReminders(),
        other.workers.fireDueReminders(),
        other.workers.fireDueReminders(),
      ]);
      expect(fired.reduce((a, b) => a + b, 0)).toBe(40);
      const ids = (
        await sqlRows<{ id: string }>(h.orm, 'select id from deliveries where endpoint_id = ?', [endpoint.id])
      ).map((r) => r.id);
      expect(ids).toHaveLength(40);
      const drain = async (svc: Harness) => {
        while ((await svc.workers.runDueDeliveries()) > 0) {}
      };
      await Promise.all([drain(h), drain(other), drain(other)]);
      const counts = ids.map((id) => hitsFor(id).length);
      expect(counts.every((n) => n === 1)).toBe(true);
    } finally {
      await other.close();
    }
  });
});
