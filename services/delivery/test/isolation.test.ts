import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from '@routinely/platform';
import { type TestUser, WebhookReceiver } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint, type Harness, publishTask, sqlRows, startHarness, taskFor } from './harness.js';

// Real time and the workers as in production. User A has 100 endpoints on a receiver that never answers
// (within the test: its timeout is far longer); user B's reminder falls due while A's sends hang.
const PER_ENDPOINT = 2;
const PER_USER = 8;
let h: Harness;
let hanging: Server;
let hangingUrl: string;
let receiver: WebhookReceiver;
const open = new Map<string, number>();
let mostOpenAtOneEndpoint = 0;
let totalOpen = 0;
let mostOpen = 0;
const secrets: string[] = [];

beforeAll(async () => {
  hanging = createServer((request: IncomingMessage) => {
    const path = request.url ?? '';
    open.set(path, (open.get(path) ?? 0) + 1);
    totalOpen++;
    mostOpen = Math.max(mostOpen, totalOpen);
    mostOpenAtOneEndpoint = Math.max(mostOpenAtOneEndpoint, open.get(path) ?? 0);
    request.socket.on('close', () => {
      open.set(path, (open.get(path) ?? 1) - 1);
      totalOpen--;
    });
    request.resume(); // read the body, never answer
  });
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
  receiver = await WebhookReceiver.start({ secrets: () => secrets });
  h = await startHarness({
    clock: systemClock,
    env: {
      DELIVERY_WORKERS_ENABLED: 'true',
      DELIVERY_POLL_MS: '200',
      WEBHOOK_TIMEOUT_MS: '60000',
      DELIVERY_LEASE_MS: '120000',
      WEBHOOK_MAX_ENDPOINTS_PER_USER: '100',
      WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(PER_ENDPOINT),
      WEBHOOK_MAX_IN_FLIGHT_PER_USER: String(PER_USER),
    },
  });
});
afterAll(async () => {
  hanging?.closeAllConnections();
  await h?.close();
  hanging?.close();
  await receiver?.close();
});

async function remindSoon(user: TestUser, title: string, inMs: number) {
  const start = new Date(Date.now() + inMs);
  const task = taskFor(user, {
    title,
    chosen_slot_start: start.toISOString(),
    chosen_slot_end: new Date(start.getTime() + 30 * 60_000).toISOString(),
    reminder_channels: ['webhook', 'inapp'],
    reminder_offset_min: 0,
  });
  await publishTask(h.transport, 'taskScheduled', task, new Date());
  return task;
}

const statuses = async (user: TestUser) =>
  sqlRows<{ channel: string; status: string }>(
    h.orm,
    'select channel, status from deliveries where user_id = ? order by channel, id',
    [user.userId],
  );

describe("one user's hanging endpoints do not delay another user's reminders", () => {
  it("B's webhook and in-app reminders complete while A's 100 endpoints are still hanging", async () => {
    const a = h.tokens.user();
    const b = h.tokens.user();
    for (let i = 0; i < 100; i++) await createEndpoint(h, a, { url: `${hangingUrl}/a/${i}` });
    secrets.push((await createEndpoint(h, b, { url: `${receiver.url}/b` })).secret);
    // A's reminder fires twice (two tasks), so each of A's endpoints has more deliveries than its limit allows.
    await remindSoon(a, 'A first', 500);
    await remindSoon(a, 'A second', 500);
    await remindSoon(a, 'A third', 500);
    await expect.poll(() => totalOpen, { timeout: 15_000 }).toBeGreaterThan(0);
    await remindSoon(b, 'B', 300);
    await expect
      .poll(async () => (await statuses(b)).map((d) => `${d.channel}:${d.status}`), { timeout: 15_000 })
      .toEqual(['inapp:sent', 'webhook:sent']);
    expect(receiver.received.filter((hit) => hit.path === '/b').map((hit) => hit.verified)).toEqual([true]);
    const bell = await h.call(b, 'GET', '/service/notifications');
    expect(bell.json().unread_count).toBe(1);
    // A's in-app reminders do not wait behind A's own webhooks either.
    expect((await statuses(a)).filter((d) => d.channel === 'inapp').map((d) => d.status)).toEqual([
      'sent',
      'sent',
      'sent',
    ]);
    // And A is still hanging: none of its webhook deliveries has an outcome yet.
    expect(totalOpen).toBeGreaterThan(0);
    const aWebhooks = (await statuses(a)).filter((d) => d.channel === 'webhook');
    expect(aWebhooks).toHaveLength(300);
    expect(aWebhooks.every((d) => d.status === 'pending')).toBe(true);
    expect(mostOpenAtOneEndpoint).toBeLessThanOrEqual(PER_ENDPOINT);
    expect(mostOpen).toBeLessThanOrEqual(PER_USER);
  });
});
