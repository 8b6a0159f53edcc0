import { ManualClock } from '@routinely/platform';
import {
  type RouteGuardTable,
  runRouteGuards,
  type TestUser,
  tokenGuardTarget,
  type WebhookReceiver,
} from '@routinely/testkit';
import { beforeAll, expect } from 'vitest';
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

const endpoint = async (owner: TestUser) => ({
  endpoint_id: (await createEndpoint(h, owner, { url: receiver.url })).id,
});

/** A reminder fired for `owner` into a webhook answering 410 (a dead delivery in the DLQ) and the in-app feed. */
async function fired(owner: TestUser) {
  const created = await createEndpoint(h, owner, { url: receiver.url });
  secrets = [created.secret];
  receiver.setResponder(() => ({ status: 410 }));
  await scheduleDue(h, clock, owner, { slotInMin: 1, reminder_channels: ['webhook', 'inapp'], reminder_offset_min: 0 });
  await h.workers.fireDueReminders();
  await h.workers.runDueDeliveries();
  const [dead] = await sqlRows<{ id: string }>(
    h.orm,
    "select id from deliveries where tenant_id = ? and channel = 'webhook' and status = 'dead'",
    [owner.tenantId],
  );
  const [letter] = await sqlRows<{ id: string }>(h.orm, 'select id from dead_letters where delivery_id = ?', [
    dead?.id,
  ]);
  const [notification] = await sqlRows<{ id: string }>(h.orm, 'select id from notifications where tenant_id = ?', [
    owner.tenantId,
  ]);
  expect(dead && letter && notification).toBeTruthy();
  return { delivery_id: String(dead?.id), dlq_id: String(letter?.id), notif_id: String(notification?.id) };
}

const READ = 'SERVICE_TASK_READ';
const REMIND = 'SERVICE_REMINDER_MANAGE';
// Reading webhooks is open to either webhook permission.
const HOOK_READ = ['SERVICE_WEBHOOK_READ', 'SERVICE_WEBHOOK_MANAGE'] as const;
const HOOK_WRITE = 'SERVICE_WEBHOOK_MANAGE';

// Every delivery route: a new route fails the coverage check until it is listed here.
const TABLE: RouteGuardTable<TestUser> = {
  'GET /service/webhooks': { permission: HOOK_READ },
  'POST /service/webhooks': {
    permission: HOOK_WRITE,
    body: () => ({ name: 'hook', url: receiver.url }),
    invalid: { body: { name: '', url: 'https://hooks.example.com/in' } },
  },
  'GET /service/webhooks/:endpoint_id': {
    permission: HOOK_READ,
    fixture: endpoint,
    invalid: { params: { endpoint_id: 'nope' } },
  },
  'PATCH /service/webhooks/:endpoint_id': {
    permission: HOOK_WRITE,
    fixture: endpoint,
    body: () => ({ name: 'renamed' }),
    invalid: { body: { max_attempts: -1 } },
  },
  'DELETE /service/webhooks/:endpoint_id': {
    permission: HOOK_WRITE,
    fixture: endpoint,
    invalid: { params: { endpoint_id: 'nope' } },
  },
  'POST /service/webhooks/:endpoint_id/rotate-secret': {
    permission: HOOK_WRITE,
    fixture: endpoint,
    invalid: { params: { endpoint_id: 'nope' } },
  },
  'POST /service/webhooks/:endpoint_id/test': {
    permission: HOOK_WRITE,
    fixture: endpoint,
    invalid: { params: { endpoint_id: 'nope' } },
  },
  'GET /service/webhooks/event-types': { permission: HOOK_READ },
  'GET /service/webhooks/:endpoint_id/attempts': {
    permission: HOOK_READ,
    fixture: endpoint,
    invalid: { query: 'limit=501' },
  },
  'GET /service/reminders/upcoming': { permission: READ, invalid: { query: 'days=91' } },
  'GET /service/reminders/deliveries': { permission: READ, invalid: { query: 'channel=pigeon' } },
  'GET /service/reminders/deliveries/:delivery_id': {
    permission: READ,
    fixture: fired,
    invalid: { params: { delivery_id: 'nope' } },
  },
  'POST /service/reminders/deliveries/:delivery_id/redeliver': {
    permission: REMIND,
    fixture: fired,
    invalid: { params: { delivery_id: 'nope' } },
  },
  'GET /service/reminders/dlq': { permission: READ, invalid: { query: 'limit=501' } },
  'POST /service/reminders/dlq/:dlq_id/requeue': {
    permission: REMIND,
    fixture: fired,
    invalid: { params: { dlq_id: 'nope' } },
  },
  // The in-app feed is the signed-in user's own; it needs no permission code.
  'GET /service/notifications': { invalid: { query: 'limit=501' } },
  'PATCH /service/notifications/:notif_id/read': { fixture: fired, invalid: { params: { notif_id: 'nope' } } },
};

runRouteGuards('delivery', () => tokenGuardTarget(h), TABLE);
