import { ManualClock } from '@routinely/platform';
import type { TestUser, WebhookReceiver } from '@routinely/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint, type Harness, scheduleDue, sqlRows, startWithReceiver } from './harness.js';

const clock = new ManualClock('2026-11-21T08:00:00.000Z');
let h: Harness;
let receiver: WebhookReceiver;
let secrets: string[] = [];

beforeAll(async () => {
  const started = await startWithReceiver(
    {
      clock,
      env: {
        WEBHOOK_MAX_ENDPOINTS_PER_USER: '5',
        WEBHOOK_CIRCUIT_THRESHOLD: '3',
        WEBHOOK_CIRCUIT_OPEN_MS: '60000',
        WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '2',
      },
    },
    () => secrets,
  );
  ({ h, receiver } = started);
  return started.close;
});

const bell = async (user: TestUser) =>
  sqlRows<{ kind: string; data: { endpoint_id: string } }>(
    h.orm,
    'select kind, data from notifications where user_id = ? and kind = ? order by created_at',
    [user.userId, 'webhook.endpoint_failing'],
  );
const endpointState = async (id: string) =>
  (
    await sqlRows<{ consecutive_failures: number; circuit_open_until: string | null }>(
      h.orm,
      'select consecutive_failures, circuit_open_until from webhook_endpoints where id = ?',
      [id],
    )
  )[0];

describe('endpoints per user', () => {
  it('caps endpoints per user (422 too_many_endpoints), also under parallel creates', async () => {
    const user = h.tokens.user();
    const auth = await h.tokens.auth(user);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        h.app.inject({
          method: 'POST',
          url: '/api/v1/service/webhooks',
          headers: auth,
          payload: { name: `hook ${i}`, url: receiver.url },
        }),
      ),
    );
    expect(answers.map((res) => res.statusCode).sort()).toEqual([201, 201, 201, 201, 201, 422, 422, 422]);
    const refused = answers.find((res) => res.statusCode === 422);
    expect(refused?.json()).toMatchObject({ status: 422, code: 'too_many_endpoints' });
    expect((await h.app.inject({ url: '/api/v1/service/webhooks', headers: auth })).json()).toHaveLength(5);
    // Another user has their own allowance.
    expect(
      (await createEndpoint(h, h.tokens.user({ tenantId: user.tenantId }), { url: receiver.url })).id,
    ).toBeTruthy();
  });
});

describe('per-endpoint circuit', () => {
  it('opens after consecutive failures (one bell), pauses, probes half-open with backoff, closes on success', async () => {
    const user = h.tokens.user();
    const endpoint = await createEndpoint(h, user, { url: `${receiver.url}/circuit`, max_attempts: 0 });
    secrets = [endpoint.secret];
    receiver.setResponder(() => ({ status: 500 }));
    await scheduleDue(h, clock, user, { slotInMin: 20, reminder_channels: ['webhook'] }, 8);
    expect(await h.workers.fireDueReminders()).toBe(8);
    const hits = () => receiver.received.filter((hit) => hit.path === '/circuit').length;
    // Two at a time (the endpoint's limit) until the third failure opens the circuit.
    expect(await h.workers.runDueDeliveries()).toBe(2);
    expect(await h.workers.runDueDeliveries()).toBe(2);
    expect(hits()).toBe(4);
    expect(await h.workers.runDueDeliveries()).toBe(0);
    expect(await endpointState(endpoint.id)).toMatchObject({ consecutive_failures: 4 });
    expect((await bell(user)).map((n) => [n.kind, n.data.endpoint_id])).toEqual([
      ['webhook.endpoint_failing', endpoint.id],
    ]);
    // Open: nothing goes out until the pause is over, then exactly one probe.
    clock.advance(30_000);
    expect(await h.workers.runDueDeliveries()).toBe(0);
    clock.advance(90_000);
    expect(await h.workers.runDueDeliveries()).toBe(1);
    expect(hits()).toBe(5);
    // The failed probe doubles the pause.
    const reopened = await endpointState(endpoint.id);
    expect(new Date(reopened?.circuit_open_until ?? 0).getTime() - clock.now().getTime()).toBe(240_000);
    clock.advance(200_000);
    expect(await h.workers.runDueDeliveries()).toBe(0);
    clock.advance(40_000);
    receiver.setResponder(() => ({ status: 200 }));
    expect(await h.workers.runDueDeliveries()).toBe(1);
    expect(await endpointState(endpoint.id)).toEqual({ consecutive_failures: 0, circuit_open_until: null });
    // Closed again: the rest flows (two at a time), and the owner was told once.
    expect(await h.workers.runDueDeliveries()).toBe(2);
    expect(hits()).toBe(8);
    expect(await h.workers.runDueDeliveries()).toBe(0);
    expect(await bell(user)).toHaveLength(1);
  });

  it('a new URL closes an open circuit', async () => {
    const user = h.tokens.user();
    const endpoint = await createEndpoint(h, user, { url: `${receiver.url}/moved`, max_attempts: 0 });
    secrets = [endpoint.secret];
    receiver.setResponder(() => ({ status: 500 }));
    await scheduleDue(h, clock, user, { slotInMin: 20, reminder_channels: ['webhook'] }, 4);
    await h.workers.fireDueReminders();
    await h.workers.runDueDeliveries();
    await h.workers.runDueDeliveries();
    expect((await endpointState(endpoint.id))?.circuit_open_until).not.toBeNull();
    const patched = await h.call(user, 'PATCH', `/service/webhooks/${endpoint.id}`, { url: `${receiver.url}/fixed` });
    expect(patched.json()).toMatchObject({ consecutive_failures: 0 });
    expect(await endpointState(endpoint.id)).toEqual({ consecutive_failures: 0, circuit_open_until: null });
  });
});
