import { defined, type ReceivedWebhook, WebhookReceiver } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CallResult, call, startTarget, type Target } from '../src/harness.js';
import { registerUser } from '../src/users.js';

// Issue 14 acceptance: a receiver dedupes on event_id across a requeue. The reminder reaches a webhook that
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

async function until(what: string, read: () => Promise<CallResult>, done: (r: CallResult) => boolean) {
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
    const token = user.token;
    const types = await call(target, 'GET', '/v1/service/webhooks/event-types', { token });
    expect(types.status).toBe(200);
    expect(types.json.map((t: { name: string }) => t.name)).toEqual(['reminder.fired', 'webhook.test']);

    const hook = await call(target, 'POST', '/api/v1/service/webhooks', {
      token,
      body: { name: 'receiver', url: `${receiver.url}/hooks`, events: ['reminder.fired'] },
    });
    const muted = await call(target, 'POST', '/api/v1/service/webhooks', {
      token,
      body: { name: 'tests only', url: `${receiver.url}/muted`, events: ['webhook.test'] },
    });
    expect([hook.status, muted.status]).toEqual([201, 201]);
    expect(hook.json.events).toEqual(['reminder.fired']);
    secrets = [hook.json.secret, muted.json.secret];

    plan.push(410);
    const start = new Date(Date.now() + 2_000 + 60_000);
    const task = await call(target, 'POST', '/api/v1/service/tasks', {
      token,
      body: { title: 'Call the bank', reminder_channels: ['webhook'], reminder_offset_min: 1, duration_min: 5 },
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

    const [first] = await receiver.waitFor(1, 30_000);
    expect(first?.status).toBe(410);
    expect(first?.verified).toBe(true);
    const dlq = await until(
      'the dead letter',
      () => call(target, 'GET', '/api/v1/service/reminders/dlq', { token }),
      (r) => r.json.items.length === 1,
    );
    const letter = dlq.json.items[0];
    const dead = await call(target, 'GET', `/api/v1/service/reminders/deliveries/${letter.delivery_id}`, { token });
    expect(dead.json).toMatchObject({ status: 'dead', attempts: 1, event_id: envelope(first).event_id });
    expect(dead.json.attempts_log).toEqual([
      expect.objectContaining({ attempt: 1, status_code: 410, error: 'receiver answered 410' }),
    ]);

    const requeued = await call(target, 'POST', `/api/v1/service/reminders/dlq/${letter.id}/requeue`, { token });
    expect(requeued.status).toBe(200);
    const [, second] = await receiver.waitFor(2, 30_000);
    expect(second?.status).toBe(200);
    expect(second?.verified).toBe(true);

    const eventId = envelope(first).event_id;
    expect(eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first?.headers['x-service-event-id']).toBe(eventId);
    expect(second?.headers['x-service-event-id']).toBe(eventId);
    expect(envelope(second).event_id).toBe(eventId);
    expect(envelope(second).delivery_id).toBe(requeued.json.id);
    expect(second?.headers['x-service-delivery-id']).toBe(requeued.json.id);
    expect(requeued.json.id).not.toBe(envelope(first).delivery_id);
    expect(first?.headers['x-service-delivery-id']).toBe(envelope(first).delivery_id);

    // The endpoint subscribed to webhook.test only got nothing of this reminder.
    expect(receiver.received.map((w) => w.path)).toEqual(['/hooks', '/hooks']);
    const sent = await until(
      'the requeued delivery recorded as sent',
      () => call(target, 'GET', `/api/v1/service/reminders/deliveries/${requeued.json.id}`, { token }),
      (r) => r.json.status === 'sent',
    );
    expect(sent.json.attempts_log).toEqual([expect.objectContaining({ attempt: 1, status_code: 200, error: null })]);
  }, 90_000);
});
