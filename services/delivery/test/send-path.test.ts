import { ManualClock } from '@routinely/platform';
import type { ReceivedWebhook, WebhookReceiver } from '@routinely/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint, type Harness, scheduleDue, sqlRows, startHarness, startWithReceiver } from './harness.js';

// The webhook send path of ADR 081: a held endpoint is topped up before it runs dry, its next send is signed
// ahead, and neither changes the limits, the retries or what a crash can do.

const clock = new ManualClock('2026-11-25T08:00:00.000Z');
const env = { DELIVERY_BATCH_SIZE: '10', WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '2', WEBHOOK_CIRCUIT_THRESHOLD: '3' };
let h: Harness;
let receiver: WebhookReceiver;
let secrets: string[] = [];

beforeAll(async () => {
  const started = await startWithReceiver({ clock, env }, () => secrets);
  ({ h, receiver } = started);
  return started.close;
});

/** Answers every request after `delayMs` and remembers the most requests the receiver held at once. */
function answerCounting(status: (hit: ReceivedWebhook) => number, delayMs = 5) {
  const seen = { inFlight: 0, max: 0 };
  receiver.setResponder(async (hit) => {
    seen.inFlight++;
    seen.max = Math.max(seen.max, seen.inFlight);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    seen.inFlight--;
    return { status: status(hit) };
  });
  return seen;
}

/** An endpoint with `count` reminders fired into deliveries (the firer takes a batch per call). */
async function firedTo(path: string, count: number, endpointFields: Record<string, unknown> = {}) {
  const user = h.tokens.user();
  const endpoint = await createEndpoint(h, user, { url: `${receiver.url}${path}`, ...endpointFields });
  secrets = [endpoint.secret];
  await scheduleDue(h, clock, user, { slotInMin: 20, reminder_channels: ['webhook'] }, count);
  let fired = 0;
  for (let n = await h.workers.fireDueReminders(); n > 0; n = await h.workers.fireDueReminders()) {
    fired += n;
  }
  expect(fired).toBe(count);
  return endpoint;
}

const hitsAt = (path: string) => receiver.received.filter((hit) => hit.path === path);
const eventIdsAt = (path: string) => hitsAt(path).map((hit) => String(hit.headers['x-service-event-id']));
const deliveriesOf = (endpointId: string) =>
  sqlRows<{ id: string; event_id: string; status: string; attempts: number; next_attempt_at: string | null }>(
    h.orm,
    'select id, event_id, status, attempts, next_attempt_at from deliveries where endpoint_id = ? order by id',
    [endpointId],
  );

describe('a held endpoint', () => {
  it('is topped up before it runs dry: one pass sends every due delivery, at most 2 in flight, each once, signed', async () => {
    const endpoint = await firedTo('/topped', 35);
    const seen = answerCounting(() => 200);
    // A claim takes one batch (10); the other 25 reach the endpoint through its top-ups, within the same pass.
    expect(await h.workers.runDueDeliveries()).toBe(35);
    expect(seen.max).toBeLessThanOrEqual(2);
    const ids = eventIdsAt('/topped');
    expect(ids).toHaveLength(35);
    expect(new Set(ids).size).toBe(35);
    expect(hitsAt('/topped').every((hit) => hit.verified)).toBe(true);
    const rows = await deliveriesOf(endpoint.id);
    expect(rows.every((d) => d.status === 'sent' && d.attempts === 1)).toBe(true);
    expect(new Set(rows.map((d) => d.event_id))).toEqual(new Set(ids));
    const [logged] = await sqlRows<{ n: number }>(
      h.orm,
      'select count(*)::int as n from delivery_attempts where endpoint_id = ?',
      [endpoint.id],
    );
    expect(logged?.n).toBe(35);
  });

  it('a send signed ahead goes out signed again when its second has passed: `t` is fresh on every try', async () => {
    await firedTo('/fresh', 6);
    const before = Math.floor(clock.now().getTime() / 1000);
    let moved = false;
    receiver.setResponder(async () => {
      if (!moved) {
        moved = true;
        clock.advance(2_000); // at the first arrival, so every answer (and every later send) comes after it
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { status: 200 };
    });
    // The third send is signed ahead when the first two start, in the old second; it leaves after the clock moved.
    expect(await h.workers.runDueDeliveries()).toBe(6);
    const hits = hitsAt('/fresh');
    expect(hits.every((hit) => hit.verified)).toBe(true);
    const stamps = hits.map((hit) => Number(hit.headers['x-service-timestamp']));
    // The first two left before the clock moved; the rest were signed ahead in the old second, and re-signed.
    expect(stamps.slice(0, 2)).toEqual([before, before]);
    expect(stamps.slice(2)).toEqual(Array(4).fill(before + 2));
  });

  it('a failed try stops the hold and its top-ups: the failure is retried on schedule, a 410 dead-letters', async () => {
    const endpoint = await firedTo('/failing', 25);
    const ids = (await deliveriesOf(endpoint.id)).map((d) => d.id);
    const retried = ids[3] ?? '';
    const gone = ids[12] ?? '';
    const statusOf = (hit: ReceivedWebhook) => {
      const id = String(hit.headers['x-service-delivery-id']);
      return id === retried ? 500 : id === gone ? 410 : 200;
    };
    answerCounting(statusOf);
    // Each failure closes the gate: what waited (topped up or not) goes back to the claim, unsent.
    while ((await h.workers.runDueDeliveries()) > 0) {}
    const rows = new Map((await deliveriesOf(endpoint.id)).map((d) => [d.id, d]));
    expect(rows.get(retried)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(rows.get(gone)).toMatchObject({ status: 'dead', attempts: 1 });
    expect([...rows.values()].filter((d) => d.status === 'sent')).toHaveLength(23);
    const [dead] = await sqlRows<{ n: number }>(
      h.orm,
      'select count(*)::int as n from dead_letters where delivery_id = ?',
      [gone],
    );
    expect(dead?.n).toBe(1);
    // The first retry waits 5 s (spec schedule), then goes out once with attempt 2 and the same event id.
    const eventId = rows.get(retried)?.event_id;
    expect(await h.workers.runDueDeliveries()).toBe(0);
    clock.advance(5_000);
    expect(await h.workers.runDueDeliveries()).toBe(1);
    const tries = hitsAt('/failing').filter((hit) => hit.headers['x-service-event-id'] === eventId);
    expect(tries.map((hit) => (hit.json as { attempt: number }).attempt)).toEqual([1, 2]);
    expect(new Set(eventIdsAt('/failing')).size).toBe(25);
  });

  it('a worker killed with sends in flight and signed ahead: after the leases expire each event arrives, no other twice', async () => {
    const endpoint = await firedTo('/killed', 30);
    const slow = answerCounting(() => 200, 200);
    const running = h.workers.runDueDeliveries();
    await receiver.waitFor(receiver.received.length + 2);
    h.workers.deliveries.kill(); // dies with 2 sends in flight, the next one signed, top-ups leased
    await running;
    h.workers.deliveries.revive();
    const inFlightAtKill = new Set(eventIdsAt('/killed'));
    expect(inFlightAtKill.size).toBeLessThanOrEqual(2);
    const other = await startHarness({ clock, db: h.db, env });
    try {
      answerCounting(() => 200);
      expect(slow.max).toBeLessThanOrEqual(2);
      expect(await other.workers.runDueDeliveries()).toBe(0); // still leased to the dead worker
      clock.advance(60_000);
      while ((await other.workers.runDueDeliveries()) > 0) {}
      const rows = await deliveriesOf(endpoint.id);
      expect(rows.every((d) => d.status === 'sent' && d.attempts === 1)).toBe(true);
      const arrivals = eventIdsAt('/killed');
      const perEvent = new Map<string, number>();
      for (const id of arrivals) perEvent.set(id, (perEvent.get(id) ?? 0) + 1);
      expect(perEvent.size).toBe(30);
      // Only the sends in flight at the kill arrive twice, under their own event id, so the receiver dedupes.
      for (const [id, n] of perEvent) expect(n).toBe(inFlightAtKill.has(id) ? 2 : 1);
    } finally {
      await other.close();
    }
  });

  it('two workers topping up one endpoint never hold it at once: at most 2 in flight, each delivery once', async () => {
    const endpoint = await firedTo('/shared', 60);
    const seen = answerCounting(() => 200, 2);
    const other = await startHarness({ clock, db: h.db, env });
    try {
      const drain = async (svc: Harness) => {
        while ((await svc.workers.runDueDeliveries()) > 0) {}
      };
      await Promise.all([drain(h), drain(other), drain(other)]);
      expect(seen.max).toBeLessThanOrEqual(2);
      const ids = eventIdsAt('/shared');
      expect(ids).toHaveLength(60);
      expect(new Set(ids).size).toBe(60);
      expect((await deliveriesOf(endpoint.id)).every((d) => d.status === 'sent' && d.attempts === 1)).toBe(true);
    } finally {
      await other.close();
    }
  });
});
