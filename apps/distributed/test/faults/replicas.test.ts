import { SERVICE_NAMES } from '@routinely/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEachReminderOnce, type FaultWorld, Load, PROBES, startFaultWorld, waitUntil } from './load.js';

// Two replicas of every service at once under a steady stream of task writes, slot changes and due
// reminders: workers and consumers share the work (no reminder sent twice, no task placed twice), a kill -9
// of one replica costs the client nothing while the other is up, and a rolling restart of every service
// (SIGTERM, as Kubernetes stops a pod) fails no request at the gateway and loses no event.
let world: FaultWorld;
let load: Load;
const report: Record<string, unknown>[] = [];

beforeAll(async () => {
  world = await startFaultWorld({
    replicas: Object.fromEntries(SERVICE_NAMES.map((s) => [s, 2])),
    env: { SHUTDOWN_DRAIN_MS: '1000' },
  });
  load = new Load(world);
}, 240_000);
afterAll(async () => {
  await load?.stop();
  if (report.length > 0) console.table(report);
  await world?.close();
});

const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }) =>
  a.start < b.end && b.start < a.end;

describe('two replicas of every service', () => {
  it('places each task once when schedule runs race over both scheduler replicas', async () => {
    const earliest = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const created = await world.call('POST', '/api/v1/service/tasks', {
        title: `Placed once ${i}`,
        duration_min: 45,
        earliest_start_at: earliest,
      });
      expect(created.status).toBe(201);
      ids.push(String((created.body as { id: string }).id));
    }
    const runs = await Promise.all(
      [0, 1, 2, 3].map(() => world.call('POST', '/api/v1/service/schedule', { task_ids: ids })),
    );
    for (const run of runs) {
      // A run whose call to the task service ran out of time (a loaded machine) says so, and the client retries.
      if (run.status === 503) expect(run.body).toMatchObject({ code: 'service_unavailable' });
      else expect([200, 202, 409], JSON.stringify(run.body)).toContain(run.status);
    }
    expect(runs.some((run) => run.status === 200)).toBe(true);
    const slots = await Promise.all(
      ids.map(async (id) => {
        const task = (await world.call('GET', `/api/v1/service/tasks/${id}`)).body as {
          status: string;
          chosen_slot_start: string;
          chosen_slot_end: string;
        };
        expect(task.status).toBe('scheduled');
        return { start: Date.parse(task.chosen_slot_start), end: Date.parse(task.chosen_slot_end) };
      }),
    );
    for (const [i, a] of slots.entries()) {
      for (const b of slots.slice(i + 1)) expect(overlaps(a, b)).toBe(false);
    }
  });

  for (const service of ['delivery', 'scheduler', 'task'] as const) {
    it(`kill -9 of one ${service} replica: the other answers, no request fails`, async () => {
      const replica = world.topology.replica(service, 0);
      const killedAt = Date.now();
      await world.topology.stop(replica, 'SIGKILL');
      for (let i = 0; i < 6; i++) expect((await world.call('GET', PROBES[service])).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const restartedAt = Date.now();
      await world.topology.start(replica);
      const window = load.window(killedAt, Date.now());
      report.push({
        fault: `kill -9 ${service}#0 of 2`,
        requests: window.requests,
        failed: window.failed,
        'restart to ready (ms)': Date.now() - restartedAt,
      });
      expect(window.failed, window.failures).toBe(0);
    });
  }

  it('a rolling restart of every service fails no request at the gateway', async () => {
    const started = Date.now();
    for (const service of SERVICE_NAMES) {
      for (const index of [0, 1]) {
        const replica = world.topology.replica(service, index);
        await world.topology.stop(replica, 'SIGTERM');
        await world.topology.start(replica);
        await waitUntil(async () => (await world.call('GET', PROBES[service])).status === 200);
      }
    }
    const window = load.window(started, Date.now());
    report.push({
      fault: 'rolling restart, 12 processes',
      requests: window.requests,
      failed: window.failed,
      'took (ms)': Date.now() - started,
    });
    expect(window.failed, window.failures).toBe(0);
  }, 600_000);

  it('loses no reminder and delivers none twice', async () => {
    await expectEachReminderOnce(load, 20, (outcome) =>
      report.push({ fault: 'all of the above (2 replicas)', requests: load.outcomes.length, ...outcome }),
    );
  }, 240_000);
});
