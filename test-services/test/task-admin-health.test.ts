import { taskModule } from '@routinely/task';
import { startServiceHarness, type TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type DashboardHarness, startDashboardHarness } from './dashboard-harness.js';
import { INTERNAL_SECRET, NO_PEER } from './internal.js';

let h: DashboardHarness;
let admin: TestUser;

const healthOf = async (user: TestUser) => {
  const res = await h.task.call(user, 'GET', '/service/admin/health');
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};

beforeAll(async () => {
  h = await startDashboardHarness('2026-11-21T08:00:00.000Z');
  admin = h.task.tokens.user({ roles: ['admin'] });
  await h.connectGoogle(h.task.tokens.user({ tenantId: admin.tenantId }));
}, 60_000);

afterAll(() => h?.close());

describe('GET /admin/health', () => {
  it('is ok while every component answers and every worker passes', async () => {
    // The workers make their first pass as they start; wait for it rather than for a time.
    await vi.waitFor(async () => expect((await healthOf(admin)).status).toBe('ok'), { timeout: 10_000 });
    const health = await healthOf(admin);
    const { components } = health;
    expect(Object.keys(components).sort()).toEqual([
      'cache',
      'calendar_worker',
      'database',
      'event_consumers',
      'integrations',
      'model_registry',
      'reminder_worker',
    ]);
    for (const c of Object.values(components) as { status: string }[]) expect(c.status).toBe('ok');
    expect(components.database.latency_ms).toEqual(expect.any(Number));
    expect(components.event_consumers).toMatchObject({ dead_letters: [], detail: 'no dead letters in the last hour' });
    expect(components.cache.detail).toMatch(/in-process/);
    expect(components.model_registry.providers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'builtin', available: true }),
        expect.objectContaining({ name: 'openai', available: false }),
      ]),
    );
    // Counts of the administrator's own tenant: the one connection made above.
    expect(components.integrations).toMatchObject({ counts: { active: 1 }, channels_expired: 0 });
    expect(components.reminder_worker.workers).toEqual([expect.objectContaining({ name: 'reminders', running: true })]);
    expect(components.calendar_worker.workers.map((w: { name: string }) => w.name)).toEqual(['sync', 'channels']);
  });

  it('is degraded once the reminder worker stops and its last pass grows older than the rule allows', async () => {
    // Stops the reminder worker alone, as a crashed or wedged worker would stop.
    await h.delivery.service.backgroundWorkers?.find((w) => w.name === 'reminders')?.stop();
    const stopped = await healthOf(admin);
    expect(stopped.status).toBe('degraded');
    expect(stopped.components.reminder_worker).toMatchObject({
      status: 'degraded',
      detail: expect.stringMatching(/not running/),
    });

    // The clock moves on: the stopped worker's last pass ages past max(3 intervals, 60 s) as well.
    h.clock.advance(2 * 60_000);
    const aged = await healthOf(admin);
    expect(aged.status).toBe('degraded');
    expect(aged.components.reminder_worker.workers[0].last_tick_age_ms).toBeGreaterThan(60_000);
    expect(aged.components.database.status).toBe('ok');
    expect(aged.components.model_registry.status).toBe('ok');
  });

  it('marks a peer that does not answer down and the whole degraded', async () => {
    const cut = await startServiceHarness(taskModule, {
      clock: h.clock,
      db: h.task.db,
      internalSecret: INTERNAL_SECRET,
      grpcAddresses: { delivery: NO_PEER, integration: h.addresses.integration },
    });
    try {
      const res = await cut.call(admin, 'GET', '/service/admin/health');
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        status: 'degraded',
        components: {
          reminder_worker: { status: 'down', detail: expect.stringMatching(/^delivery did not answer/) },
          model_registry: { status: 'ok' },
          database: { status: 'ok' },
        },
      });
    } finally {
      await cut.close();
    }
  });

  it("shows an administrator the model registry's last calls of their own tenant only", async () => {
    const other = h.task.tokens.user({ roles: ['admin'] });
    // A model call of the other tenant, reported by the scheduler as every call is (an event to this service).
    await h.scheduler.service.domain.outcomes.report(other.tenantId, 'openai', 'ok');
    const at = h.clock.now();
    const openai = async (user: TestUser) =>
      (await healthOf(user)).components.model_registry.providers.find((p: { name: string }) => p.name === 'openai');
    await vi.waitFor(
      async () => expect(await openai(other)).toMatchObject({ last_outcome: 'ok', last_call_at: at.toISOString() }),
      { timeout: 10_000, interval: 50 },
    );
    expect(await openai(admin)).toMatchObject({ last_outcome: null, last_call_at: null, last_error: null });
  });

  it("is degraded while any service's consumer has a dead letter younger than an hour", async () => {
    // Events whose data fail the catalog: each consumer that takes them dead-letters them at once (poison).
    const poison = (type: string) => ({
      id: crypto.randomUUID(),
      type,
      tenant_id: admin.tenantId,
      user_id: admin.userId,
      occurred_at: h.clock.now().toISOString(),
      data: { not: 'what the catalog says' },
    });
    // The task service's settings consumer, a delivery consumer of task events, the scheduler's placement consumer.
    for (const type of [
      'scheduler.settings.timezone_changed',
      'task.task.created',
      'task.series.occurrences_generated',
    ]) {
      await h.transport.publish(poison(type));
    }
    const letters = async () => {
      const { components } = await healthOf(admin);
      return components.event_consumers as { status: string; dead_letters: { consumer: string; type: string }[] };
    };
    await vi.waitFor(
      async () => {
        const component = await letters();
        expect(component.status).toBe('degraded');
        const seen = component.dead_letters.map((l) => `${l.consumer.split('.')[0]}:${l.type}`);
        expect(seen).toEqual(
          expect.arrayContaining([
            'task:scheduler.settings.timezone_changed',
            'delivery:task.task.created',
            'scheduler:task.series.occurrences_generated',
          ]),
        );
      },
      { timeout: 10_000, interval: 100 },
    );
    expect((await healthOf(admin)).status).toBe('degraded');
    // An hour later they are history: the component is ok again.
    h.clock.advance(61 * 60_000);
    expect(await letters()).toMatchObject({ status: 'ok', dead_letters: [] });
  });

  it('answers 403 to a user without SERVICE_ADMIN', async () => {
    const res = await h.task.call(h.task.tokens.user(), 'GET', '/service/admin/health');
    expect(res.statusCode).toBe(403);
  });
});
