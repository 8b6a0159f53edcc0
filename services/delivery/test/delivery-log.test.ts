import { ManualClock } from '@routinely/platform';
import type { TestUser, WebhookReceiver } from '@routinely/testkit';
import { defined } from '@routinely/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint, type Harness, scheduleDue, sqlRows, startWithReceiver } from './harness.js';

const clock = new ManualClock('2026-11-21T08:00:00.000Z');
let h: Harness;
let receiver: WebhookReceiver;
let secrets: string[] = [];

beforeAll(async () => {
  const started = await startWithReceiver({ clock }, () => secrets);
  ({ h, receiver } = started);
  return started.close;
});

/** Fires one reminder with webhook + inapp channels for `user`; the webhook answers `status`. */
async function fire(user: TestUser, status: number) {
  const endpoint = await createEndpoint(h, user, { url: receiver.url });
  secrets = [endpoint.secret];
  receiver.setResponder(() => ({ status }));
  const [task] = await scheduleDue(h, clock, user, {
    slotInMin: 1,
    reminder_channels: ['webhook', 'inapp'],
    reminder_offset_min: 0,
  });
  await h.workers.fireDueReminders();
  await h.workers.runDueDeliveries();
  const [reminder] = await sqlRows<{ id: string }>(h.orm, 'select id from reminders where task_id = ?', [task?.id]);
  return { endpoint, reminderId: reminder?.id };
}

describe('delivery log, redeliver, dead-letter queue', () => {
  it('filters and pages the delivery log and shows detail', async () => {
    const user = h.tokens.user();
    const { reminderId } = await fire(user, 410);
    const auth = await h.tokens.auth(user);
    const all = (await h.app.inject({ url: '/api/v1/service/reminders/deliveries', headers: auth })).json();
    expect(all).toMatchObject({ total: 2, limit: 50, offset: 0 });
    const dead = (
      await h.app.inject({ url: '/api/v1/service/reminders/deliveries?status=dead', headers: auth })
    ).json();
    expect(dead.items).toHaveLength(1);
    expect(dead.items[0]).toMatchObject({
      channel: 'webhook',
      status: 'dead',
      attempts: 1,
      max_attempts: 4,
      last_status_code: 410,
      reminder_id: reminderId,
      next_attempt_at: null,
    });
    const inapp = (
      await h.app.inject({
        url: `/v1/service/reminders/deliveries?channel=inapp&reminder_id=${reminderId}`,
        headers: auth,
      })
    ).json();
    expect(inapp.items.map((d: { channel: string; status: string }) => [d.channel, d.status])).toEqual([
      ['inapp', 'sent'],
    ]);
    expect(
      (await h.app.inject({ url: '/api/v1/service/reminders/deliveries?limit=1&offset=1', headers: auth })).json()
        .items,
    ).toHaveLength(1);
    const detail = (
      await h.app.inject({ url: `/api/v1/service/reminders/deliveries/${dead.items[0].id}`, headers: auth })
    ).json();
    expect(detail).toMatchObject({
      id: dead.items[0].id,
      event: 'reminder.fired',
      payload: { event: 'reminder.fired', delivery_id: dead.items[0].id },
    });
    for (const q of ['status=lost', 'channel=sms', 'reminder_id=x', 'limit=0', 'limit=501', 'offset=-1']) {
      expect(
        (await h.app.inject({ url: `/api/v1/service/reminders/deliveries?${q}`, headers: auth })).statusCode,
        q,
      ).toBe(422);
    }
  });

  it('a 410 lands in the DLQ; requeue removes the row and delivers a fresh delivery', async () => {
    const user = h.tokens.user();
    await fire(user, 410);
    const auth = await h.tokens.auth(user);
    const dlq = (await h.app.inject({ url: '/api/v1/service/reminders/dlq', headers: auth })).json();
    expect(dlq).toMatchObject({ total: 1, limit: 50, offset: 0 });
    const letter = dlq.items[0];
    expect(letter).toMatchObject({
      channel: 'webhook',
      reason: 'receiver answered 410',
      last_status_code: 410,
      attempts: 1,
    });
    receiver.setResponder(() => ({ status: 200 }));
    const requeued = await h.app.inject({
      method: 'POST',
      url: `/api/v1/service/reminders/dlq/${letter.id}/requeue`,
      headers: auth,
    });
    expect(requeued.statusCode).toBe(200);
    expect(requeued.json()).toMatchObject({
      status: 'pending',
      attempts: 0,
      reminder_id: letter.reminder_id,
      endpoint_id: letter.endpoint_id,
    });
    expect(requeued.json().id).not.toBe(letter.delivery_id);
    expect((await h.app.inject({ url: '/api/v1/service/reminders/dlq', headers: auth })).json().total).toBe(0);
    await h.workers.runDueDeliveries();
    const fresh = (
      await h.app.inject({ url: `/api/v1/service/reminders/deliveries/${requeued.json().id}`, headers: auth })
    ).json();
    expect(fresh).toMatchObject({ status: 'sent', attempts: 1 });
    expect(fresh.payload.delivery_id).toBe(requeued.json().id);
    expect(receiver.received.at(-1)?.headers['x-service-delivery-id']).toBe(requeued.json().id);
    expect(
      (await h.app.inject({ method: 'POST', url: `/api/v1/service/reminders/dlq/${letter.id}/requeue`, headers: auth }))
        .statusCode,
    ).toBe(404);
  });

  it('10 parallel requeues of one dead letter: exactly one wins with one fresh delivery, the other nine are 404', async () => {
    const user = h.tokens.user();
    const { reminderId } = await fire(user, 410);
    const auth = await h.tokens.auth(user);
    const [letter] = (await h.app.inject({ url: '/api/v1/service/reminders/dlq', headers: auth })).json().items;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        h.app.inject({ method: 'POST', url: `/api/v1/service/reminders/dlq/${letter.id}/requeue`, headers: auth }),
      ),
    );
    const codes = answers.map((res) => res.statusCode).sort();
    expect(codes).toEqual([200, ...Array<number>(9).fill(404)]);
    const winner = answers.find((res) => res.statusCode === 200);
    const webhookDeliveries = await sqlRows<{ id: string; status: string }>(
      h.orm,
      "select id, status from deliveries where reminder_id = ? and channel = 'webhook' order by created_at, id",
      [reminderId],
    );
    expect(webhookDeliveries.map((row) => row.status)).toEqual(['dead', 'pending']);
    expect(defined(webhookDeliveries[1]).id).toBe(defined(winner).json().id);
    expect((await h.app.inject({ url: '/api/v1/service/reminders/dlq', headers: auth })).json().total).toBe(0);
  });

  it('redeliver resets to pending, attempts 0, next_attempt_at now, and sends again under the same id', async () => {
    const user = h.tokens.user();
    await fire(user, 500);
    const auth = await h.tokens.auth(user);
    const [failed] = (
      await h.app.inject({ url: '/api/v1/service/reminders/deliveries?status=failed', headers: auth })
    ).json().items;
    expect(failed).toMatchObject({ attempts: 1 });
    const res = await h.app.inject({
      method: 'POST',
      url: `/api/v1/service/reminders/deliveries/${failed.id}/redeliver`,
      headers: auth,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: failed.id,
      status: 'pending',
      attempts: 0,
      next_attempt_at: clock.now().toISOString(),
    });
    receiver.setResponder(() => ({ status: 200 }));
    await h.workers.runDueDeliveries();
    expect(receiver.received.at(-1)?.headers['x-service-delivery-id']).toBe(failed.id);
    expect((defined(receiver.received.at(-1)).json as { attempt: number }).attempt).toBe(1);
    const after = (
      await h.app.inject({ url: `/api/v1/service/reminders/deliveries/${failed.id}`, headers: auth })
    ).json();
    expect(after).toMatchObject({ status: 'sent', attempts: 1 });
  });

  // 401, 403 and 422 on every route, and 404 for another tenant: route-guards.test.ts.
  it('hides deliveries and dead letters from other users of the tenant and from other tenants', async () => {
    const owner = h.tokens.user();
    await fire(owner, 410);
    const auth = await h.tokens.auth(owner);
    const [delivery] = (
      await h.app.inject({ url: '/api/v1/service/reminders/deliveries?channel=webhook', headers: auth })
    ).json().items;
    const [letter] = (await h.app.inject({ url: '/api/v1/service/reminders/dlq', headers: auth })).json().items;
    const routes = [
      ['GET', `/service/reminders/deliveries/${delivery.id}`],
      ['POST', `/service/reminders/deliveries/${delivery.id}/redeliver`],
      ['POST', `/service/reminders/dlq/${letter.id}/requeue`],
    ] as const;
    for (const intruder of [h.tokens.user({ tenantId: owner.tenantId }), h.tokens.user()]) {
      const headers = await h.tokens.auth(intruder);
      for (const [method, url] of routes) {
        expect((await h.app.inject({ method, url: `/api/v1${url}`, headers })).statusCode, url).toBe(404);
      }
      expect((await h.app.inject({ url: '/api/v1/service/reminders/dlq', headers })).json().total).toBe(0);
      expect((await h.app.inject({ url: '/api/v1/service/reminders/deliveries', headers })).json().total).toBe(0);
    }
    const [stillDead] = await sqlRows<{ status: string }>(h.orm, 'select status from deliveries where id = ?', [
      delivery.id,
    ]);
    expect(stillDead?.status).toBe('dead');
  });
});
