import { SERVICE_NAMES, type ServiceName } from '@routinely/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEachReminderOnce, type FaultWorld, Load, PROBES, startFaultWorld, waitUntil } from './load.js';

// kill -9 of each service process in turn under a steady stream of task writes, slot changes and due
// reminders: the others keep answering, the dead one's routes answer 503 problem+json at once, the dashboard
// names what is missing, and after the restart no reminder is lost or delivered twice.
let world: FaultWorld;
let load: Load;
const report: Record<string, unknown>[] = [];

beforeAll(async () => {
  world = await startFaultWorld();
  load = new Load(world);
}, 180_000);
afterAll(async () => {
  await load?.stop();
  if (report.length > 0) console.table(report);
  await world?.close();
});

/**
 * What the dashboard names in `degraded` while each service it asks is down. The scheduler is not asked: its
 * spend comes as events (ADR 056), so while it is down the dashboard answers whole.
 */
const DEGRADED: Partial<Record<ServiceName, string[]>> = {
  delivery: ['notifications_unread', 'reminders_next_24h'],
  scheduler: [],
  integration: ['integrations_connected'],
};

// The order keeps the writer (task) last, so the reminders it owes are already in flight for the others.
const ORDER: ServiceName[] = ['delivery', 'scheduler', 'integration', 'calendar', 'auth', 'task'];

describe('kill -9 of each service process under load', () => {
  it('covers every service', () => {
    expect([...ORDER].sort()).toEqual([...SERVICE_NAMES].sort());
  });

  for (const service of ORDER) {
    it(`${service}: the others answer, its routes answer 503 problem+json, the restart catches up`, async () => {
      const replica = world.topology.replica(service);
      const killedAt = Date.now();
      await world.topology.stop(replica, 'SIGKILL');

      const down = await world.call('GET', PROBES[service]);
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ status: 503, code: 'service_unavailable' });
      expect(JSON.stringify(down.body)).not.toMatch(/round_robin|No connection established|reset reason/);
      for (const other of SERVICE_NAMES.filter((s) => s !== service)) {
        expect((await world.call('GET', PROBES[other])).status, other).toBe(200);
      }
      const expected = DEGRADED[service];
      if (expected) {
        const summary = await world.call('GET', '/api/v1/service/dashboard/summary');
        expect(summary.status).toBe(200);
        const body = summary.body as { degraded: string[]; llm_spend_today_usd: unknown };
        expect(body.degraded).toEqual(expect.arrayContaining(expected));
        expect(body.llm_spend_today_usd).toEqual(expect.any(Number));
      }
      // The task service calls no service that calls it: an import counts its quota itself.
      if (service === 'scheduler') {
        const imported = await world.call('POST', '/api/v1/service/tasks/bulk-import', {
          rows: [{ ref: 'a', title: 'Imported while the scheduler is down' }],
          commit: true,
        });
        expect(imported.status).toBe(200);
        expect(imported.body).toMatchObject({ committed: true, valid: 1 });
      }
      await new Promise((resolve) => setTimeout(resolve, 2_000));

      const restartedAt = Date.now();
      await world.topology.start(replica);
      const readyMs = Date.now() - restartedAt;
      const routedMs = await waitUntil(async () => (await world.call('GET', PROBES[service])).status === 200);
      const window = load.window(killedAt, Date.now());
      report.push({
        fault: `kill -9 ${service}`,
        requests: window.requests,
        failed: window.failed,
        'down (ms)': restartedAt - killedAt,
        'restart to ready (ms)': readyMs,
        'ready to routed (ms)': routedMs,
      });
      // Only the task service's own writes may fail while it is down; every other fault costs the load nothing.
      if (service !== 'task') expect(window.failed, window.failures).toBe(0);
    }, 180_000);
  }

  it('loses no reminder and delivers none twice', async () => {
    await expectEachReminderOnce(load, 20, (outcome) =>
      report.push({ fault: 'all of the above', requests: load.outcomes.length, ...outcome }),
    );
  }, 240_000);
});
