import { Sql } from '@routinely/db';
import { enqueue, JetStreamTransport, makeEvent, OutboxRelay, taskEvents } from '@routinely/events';
import { systemClock } from '@routinely/platform';
import {
  defined,
  quietLogger,
  requireEnv,
  TEST_RETRY_WAIT_MS,
  TEST_RETRY_WAITS_MS,
  type TestUser,
  uniqueName,
  WebhookReceiver,
} from '@routinely/testkit';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint, type Harness, sqlRows, startHarness, taskFor } from './harness.js';

// Real time, real JetStream, workers running as in production: task events go through an outbox relay into
// JetStream, the service's durable consumer builds reminders, its timers fire them.
const stripe = new Stripe('sk_test_not_used');
const logger = quietLogger();
let h: Harness;
let transport: JetStreamTransport;
let relay: OutboxRelay;
let receiver: WebhookReceiver;
const secrets: string[] = [];

beforeAll(async () => {
  transport = await JetStreamTransport.connect(requireEnv('NATS_URL'), logger, uniqueName('delivery_e2e'));
  h = await startHarness({
    clock: systemClock,
    transport,
    env: { DELIVERY_WORKERS_ENABLED: 'true', DELIVERY_POLL_MS: '1000', WEBHOOK_RETRY_WAITS_MS: TEST_RETRY_WAITS_MS },
  });
  relay = new OutboxRelay({ db: Sql.of(h.orm), transport, logger, pollMs: 100 });
  relay.start();
  receiver = await WebhookReceiver.start({ secrets: () => secrets });
});
afterAll(async () => {
  await relay?.stop();
  await receiver?.close();
  await h?.close();
  await transport?.deleteStreams();
  await transport?.close();
});

/** The task service's side: the event enters an outbox in a transaction, the relay publishes it. */
async function scheduleTask(user: TestUser, title: string, inMs: number) {
  const start = new Date(Date.now() + inMs);
  const task = taskFor(user, {
    title,
    chosen_slot_start: start.toISOString(),
    chosen_slot_end: new Date(start.getTime() + 30 * 60_000).toISOString(),
    reminder_channels: ['webhook', 'inapp'],
    reminder_offset_min: 0,
  });
  await Sql.of(h.orm).transaction((sql) =>
    enqueue(
      sql,
      makeEvent(taskEvents.taskScheduled, { tenantId: user.tenantId, userId: user.userId, at: new Date() }, { task }),
    ),
  );
  relay.kick();
  return { task, remindAt: start };
}

describe('end to end: task event -> reminder -> signed webhook + bell', () => {
  it('fires a verified reminder.fired and a bell notification; 500 then 200 retries after the configured wait with the same delivery id', async () => {
    const user = h.tokens.user();
    const endpoint = await createEndpoint(h, user, { url: `${receiver.url}/flaky` });
    secrets.push(endpoint.secret);
    let calls = 0;
    receiver.setResponder(() => ({ status: ++calls === 1 ? 500 : 200 }));
    const { task } = await scheduleTask(user, 'E2E reminder', 2_000);
    const [first, second] = await receiver.waitFor(2, 20_000);
    for (const hit of [defined(first), defined(second)]) {
      expect(hit.verified).toBe(true);
      const event = stripe.webhooks.constructEvent(
        hit.rawBody,
        String(hit.headers['x-service-signature']),
        endpoint.secret,
      ) as unknown as Record<string, unknown>;
      expect(event).toMatchObject({
        event: 'reminder.fired',
        user_id: user.userId,
        task: { id: task.id, title: 'E2E reminder' },
      });
    }
    expect(first?.headers['x-service-delivery-id']).toBe(second?.headers['x-service-delivery-id']);
    expect([
      (defined(first).json as { attempt: number }).attempt,
      (defined(second).json as { attempt: number }).attempt,
    ]).toEqual([1, 2]);
    expect(defined(second).receivedAtMs - defined(first).receivedAtMs).toBeGreaterThanOrEqual(TEST_RETRY_WAIT_MS);
    const auth = await h.tokens.auth(user);
    await expect
      .poll(
        async () => (await h.app.inject({ url: '/api/v1/service/notifications', headers: auth })).json().unread_count,
        { timeout: 5_000 },
      )
      .toBe(1);
    const deliveryId = String(first?.headers['x-service-delivery-id']);
    await expect
      .poll(
        async () =>
          (await h.app.inject({ url: `/api/v1/service/reminders/deliveries/${deliveryId}`, headers: auth })).json()
            .status,
        { timeout: 5_000 },
      )
      .toBe('sent');
  });

  it('a 410 lands in the dead-letter queue and requeue delivers it', async () => {
    const user = h.tokens.user();
    const endpoint = await createEndpoint(h, user, { url: `${receiver.url}/gone` });
    secrets.push(endpoint.secret);
    let gone = true;
    receiver.setResponder(() => ({ status: gone ? 410 : 200 }));
    const before = receiver.received.length;
    await scheduleTask(user, 'E2E dead letter', 1_000);
    await receiver.waitFor(before + 1, 15_000);
    const auth = await h.tokens.auth(user);
    await expect
      .poll(async () => (await h.app.inject({ url: '/api/v1/service/reminders/dlq', headers: auth })).json().total, {
        timeout: 5_000,
      })
      .toBe(1);
    const [letter] = (await h.app.inject({ url: '/api/v1/service/reminders/dlq', headers: auth })).json().items;
    gone = false;
    const requeued = await h.app.inject({
      method: 'POST',
      url: `/api/v1/service/reminders/dlq/${letter.id}/requeue`,
      headers: auth,
    });
    expect(requeued.statusCode).toBe(200);
    const hits = await receiver.waitFor(before + 2, 10_000);
    expect(hits.at(-1)?.headers['x-service-delivery-id']).toBe(requeued.json().id);
    expect(hits.at(-1)?.verified).toBe(true);
    await expect
      .poll(
        async () =>
          (
            await sqlRows<{ status: string }>(h.orm, 'select status from deliveries where id = ?', [requeued.json().id])
          )[0]?.status,
        { timeout: 5_000 },
      )
      .toBe('sent');
  });
});
