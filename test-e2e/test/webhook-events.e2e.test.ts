import { defined, type ReceivedWebhook, WebhookReceiver } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aliasApiFor, apiFor, startTarget, type Target } from '../src/harness.js';
import { registerUser } from '../src/users.js';

// A receiver dedupes on event_id across a requeue. The reminder reaches a webhook that
// answers 410 (dead, dead-letter queue); the requeue arrives with the same event_id and a new delivery id.
let target: Target;
let receiver: WebhookReceiver;
let secrets: string[] = [];
const plan: number[] = [];

beforeAll(async () => {
  target = await startTarget();
  receiver = await WebhookReceiver.start({
    secrets: () => secrets,
    responder: () => ({ status: plan.shift() ?? 200 }),
  });
});
afterAll(async () => {
  await receiver?.close();
  await target?.close();
});

async function until<T>(what: string, read: () => Promise<T>, done: (r: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const result = await read();
    if (done(result)) return result;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const envelope = (w: ReceivedWebhook | undefined) => defined(w, 'a webhook').json as Record<string, unknown>;

describe('webhook events end to end', () => {
  it('a requeued dead delivery arrives with the same event_id (envelope and header) and a new delivery id', async () => {
    const user = await registerUser(target);
    const api = apiFor(target, user.token);
    const types = await aliasApiFor(target, user.token).GET('/api/v1/service/webhooks/event-types');
    expect(types.response.status).toBe(200);
    expect(types.data?.map((t) => t.name)).toEqual(['reminder.fired', 'webhook.test']);

    const hook = await api.POST('/api/v1/service/webhooks', {
      body: { name: 'receiver', url: `${receiver.url}/hooks`, events: ['reminder.fired'] },
    });
    const muted = await api.POST('/api/v1/service/webhooks', {
      body: { name: 'tests only', url: `${receiver.url}/muted`, events: ['webhook.test'] },
    });
    expect([hook.response.status, muted.response.status]).toEqual([201, 201]);
    expect(hook.data?.events).toEqual(['reminder.fired']);
    secrets = [String(hook.data?.secret), String(muted.data?.secret)];

    plan.push(410);
    const start = new Date(Date.now() + 2_000 + 60_000);
    const task = await api.POST('/api/v1/service/tasks', {
      body: { title: 'Call the bank', reminder_channels: ['webhook'], reminder_offset_min: 1, duration_min: 5 },
    });
    expect(task.response.status).toBe(201);
    const scheduled = await api.PATCH('/api/v1/service/tasks/{task_id}', {
      params: { path: { task_id: String(task.data?.id) } },
      body: {
        chosen_slot_start: start.toISOString(),
        chosen_slot_end: new Date(start.getTime() + 300_000).toISOString(),
      },
    });
    expect(scheduled.response.status).toBe(200);

    const [first] = await receiver.waitFor(1, 30_000);
    expect(first?.status).toBe(410);
    expect(first?.verified).toBe(true);
    const dlq = await until(
      'the dead letter',
      () => api.GET('/api/v1/service/reminders/dlq'),
      (r) => r.data?.items.length === 1,
    );
    const letter = defined(dlq.data?.items[0], 'the dead letter');
    const delivery = (delivery_id: string) =>
      api.GET('/api/v1/service/reminders/deliveries/{delivery_id}', { params: { path: { delivery_id } } });
    const dead = await delivery(letter.delivery_id);
    expect(dead.data).toMatchObject({ status: 'dead', attempts: 1, event_id: envelope(first).event_id });
    expect(dead.data?.attempts_log).toEqual([
      expect.objectContaining({ attempt: 1, status_code: 410, error: 'receiver answered 410' }),
    ]);

    const requeued = await api.POST('/api/v1/service/reminders/dlq/{dlq_id}/requeue', {
      params: { path: { dlq_id: letter.id } },
    });
    expect(requeued.response.status).toBe(200);
    const requeuedId = String(requeued.data?.id);
    const [, second] = await receiver.waitFor(2, 30_000);
    expect(second?.status).toBe(200);
    expect(second?.verified).toBe(true);

    const eventId = envelope(first).event_id;
    expect(eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first?.headers['x-service-event-id']).toBe(eventId);
    expect(second?.headers['x-service-event-id']).toBe(eventId);
    expect(envelope(second).event_id).toBe(eventId);
    expect(envelope(second).delivery_id).toBe(requeued.data?.id);
    expect(second?.headers['x-service-delivery-id']).toBe(requeued.data?.id);
    expect(requeued.data?.id).not.toBe(envelope(first).delivery_id);
    expect(first?.headers['x-service-delivery-id']).toBe(envelope(first).delivery_id);

    // The endpoint subscribed to webhook.test only got nothing of this reminder.
    expect(receiver.received.map((w) => w.path)).toEqual(['/hooks', '/hooks']);
    const sent = await until(
      'the requeued delivery recorded as sent',
      () => delivery(requeuedId),
      (r) => r.data?.status === 'sent',
    );
    expect(sent.data?.attempts_log).toEqual([expect.objectContaining({ attempt: 1, status_code: 200, error: null })]);
  }, 90_000);
});
