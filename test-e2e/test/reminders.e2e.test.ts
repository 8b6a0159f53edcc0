import { defined, TEST_RETRY_WAIT_MS, WebhookReceiver } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFor, startTarget, type Target } from '../src/harness.js';
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

type Channel = 'email' | 'inapp' | 'webhook';

async function scheduleTaskIn(token: string, seconds: number, channels: Channel[]) {
  const api = apiFor(target, token);
  const start = new Date(Date.now() + seconds * 1000 + 60_000);
  const task = await api.POST('/api/v1/service/tasks', {
    body: { title: 'Take the pills', reminder_channels: channels, reminder_offset_min: 1, duration_min: 5 },
  });
  expect(task.response.status).toBe(201);
  const taskId = String(task.data?.id);
  const scheduled = await api.PATCH('/api/v1/service/tasks/{task_id}', {
    params: { path: { task_id: taskId } },
    body: {
      chosen_slot_start: start.toISOString(),
      chosen_slot_end: new Date(start.getTime() + 300_000).toISOString(),
    },
  });
  expect(scheduled.response.status).toBe(200);
  return taskId;
}

describe('reminders end to end', () => {
  it('fires a signed reminder.fired and a bell notification, retries a 500 with the same delivery id, dead-letters a 410 and requeues it', async () => {
    const user = await registerUser(target);
    const api = apiFor(target, user.token);
    const endpoint = await api.POST('/api/v1/service/webhooks', {
      body: { name: 'receiver', url: `${receiver.url}/hooks` },
    });
    expect(endpoint.response.status).toBe(201);
    secret = String(endpoint.data?.secret);

    // 1. 500 then 200: the retry comes after the schedule's first wait with the same delivery id.
    plan.push(500, 200);
    const taskId = await scheduleTaskIn(user.token, 2, ['webhook', 'inapp']);
    const tries = await receiver.waitFor(2, 30_000);
    const first = defined(tries[0], 'the first try');
    const second = defined(tries[1], 'the retry');
    expect(first?.verified && second?.verified).toBe(true);
    expect(first?.status).toBe(500);
    expect(second?.status).toBe(200);
    expect(second?.headers['x-service-delivery-id']).toBe(first?.headers['x-service-delivery-id']);
    expect(second.receivedAtMs - first.receivedAtMs).toBeGreaterThanOrEqual(TEST_RETRY_WAIT_MS);
    // Not late either: within the spec's first wait (5 s) and its slack, whichever schedule the target runs.
    expect(second.receivedAtMs - first.receivedAtMs).toBeLessThan(8_000);
    const body = first?.json as Record<string, unknown>;
    expect(body).toMatchObject({ event: 'reminder.fired', user_id: user.id, tenant_id: user.tenantId, attempt: 1 });
    expect(body.task).toMatchObject({ id: taskId, title: 'Take the pills' });
    expect(second?.json).toMatchObject({ attempt: 2 });
    expect(first?.headers['x-service-event']).toBe('reminder.fired');
    const feed = await api.GET('/api/v1/service/notifications');
    expect(feed.response.status).toBe(200);
    expect(feed.data?.unread_count).toBeGreaterThanOrEqual(1);

    // 2. 410: dead-lettered; requeue delivers it.
    plan.push(410);
    await scheduleTaskIn(user.token, 2, ['webhook']);
    await receiver.waitFor(3, 30_000);
    let dead = (await api.GET('/api/v1/service/reminders/dlq')).data?.items ?? [];
    for (let i = 0; i < 50 && dead.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 200));
      dead = (await api.GET('/api/v1/service/reminders/dlq')).data?.items ?? [];
    }
    expect(dead).toHaveLength(1);
    const requeued = await api.POST('/api/v1/service/reminders/dlq/{dlq_id}/requeue', {
      params: { path: { dlq_id: defined(dead[0], 'the dead letter').id } },
    });
    expect(requeued.response.status).toBeLessThan(300);
    const all = await receiver.waitFor(4, 30_000);
    expect(all[3]?.status).toBe(200);
    expect(all[3]?.verified).toBe(true);
    expect((await api.GET('/api/v1/service/reminders/dlq')).data?.items).toHaveLength(0);
  }, 90_000);
});
