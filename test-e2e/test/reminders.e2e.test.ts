import { defined, WebhookReceiver } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTarget, type Target } from '../src/harness.js';
import { registerUser } from '../src/users.js';

// The acceptance path of the delivery issue across the real services: the task service's outbox event
// reaches the delivery service, which fires the reminder on time, signed, retried and dead-lettered.
let target: Target;
let receiver: WebhookReceiver;
let secret = '';
const plan: number[] = [];

beforeAll(async () => {
  target = await startTarget();
  receiver = await WebhookReceiver.start({
    secrets: () => [secret],
    responder: () => ({ status: plan.shift() ?? 200 }),
  });
});
afterAll(async () => {
  await receiver?.close();
  await target?.close();
});

async function scheduleTaskIn(token: string, seconds: number, channels: string[]) {
  const start = new Date(Date.now() + seconds * 1000 + 60_000);
  const task = await call(target, 'POST', '/api/v1/service/tasks', {
    token,
    body: { title: 'Take the pills', reminder_channels: channels, reminder_offset_min: 1, duration_min: 5 },
  });
  expect(task.status).toBe(201);
  const scheduled = await call(target, 'PATCH', `/api/v1/service/tasks/${task.json.id}`, {
    token,
    body: {
      chosen_slot_start: start.toISOString(),
      chosen_slot_end: new Date(start.getTime() + 300_000).toISOString(),
    },
  });
  expect(scheduled.status).toBe(200);
  return task.json.id as string;
}

describe('reminders end to end', () => {
  it('fires a signed reminder.fired and a bell notification, retries a 500 with the same delivery id, dead-letters a 410 and requeues it', async () => {
    const user = await registerUser(target);
    const endpoint = await call(target, 'POST', '/api/v1/service/webhooks', {
      token: user.token,
      body: { name: 'receiver', url: `${receiver.url}/hooks` },
    });
    expect(endpoint.status).toBe(201);
    secret = endpoint.json.secret;

    // 1. 500 then 200: the retry comes about 5 s later with the same delivery id.
    plan.push(500, 200);
    const taskId = await scheduleTaskIn(user.token, 5, ['webhook', 'inapp']);
    const tries = await receiver.waitFor(2, 30_000);
    const first = defined(tries[0], 'the first try');
    const second = defined(tries[1], 'the retry');
    expect(first?.verified && second?.verified).toBe(true);
    expect(first?.status).toBe(500);
    expect(second?.status).toBe(200);
    expect(second?.headers['x-service-delivery-id']).toBe(first?.headers['x-service-delivery-id']);
    expect(second.receivedAtMs - first.receivedAtMs).toBeGreaterThanOrEqual(4_000);
    expect(second.receivedAtMs - first.receivedAtMs).toBeLessThan(8_000);
    const body = first?.json as Record<string, unknown>;
    expect(body).toMatchObject({ event: 'reminder.fired', user_id: user.id, tenant_id: user.tenantId, attempt: 1 });
    expect(body.task).toMatchObject({ id: taskId, title: 'Take the pills' });
    expect(second?.json).toMatchObject({ attempt: 2 });
    expect(first?.headers['x-service-event']).toBe('reminder.fired');
    const feed = await call(target, 'GET', '/api/v1/service/notifications', { token: user.token });
    expect(feed.status).toBe(200);
    expect(feed.json.unread_count).toBeGreaterThanOrEqual(1);

    // 2. 410: dead-lettered; requeue delivers it.
    plan.push(410);
    await scheduleTaskIn(user.token, 2, ['webhook']);
    await receiver.waitFor(3, 30_000);
    let dlq: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 50; i++) {
      dlq = await call(target, 'GET', '/api/v1/service/reminders/dlq', { token: user.token });
      if (dlq.json.items.length > 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(dlq?.json.items).toHaveLength(1);
    const requeued = await call(target, 'POST', `/api/v1/service/reminders/dlq/${dlq?.json.items[0].id}/requeue`, {
      token: user.token,
    });
    expect(requeued.status).toBeLessThan(300);
    const all = await receiver.waitFor(4, 30_000);
    expect(all[3]?.status).toBe(200);
    expect(all[3]?.verified).toBe(true);
    expect((await call(target, 'GET', '/api/v1/service/reminders/dlq', { token: user.token })).json.items).toHaveLength(
      0,
    );
  }, 90_000);
});
