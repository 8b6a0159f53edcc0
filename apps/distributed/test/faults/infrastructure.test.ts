import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEachReminderOnce, type FaultWorld, Load, PROBES, startFaultWorld, waitUntil } from './load.js';
import { NATS_SERVER, postgresBin, startNats, startPostgres } from './servers.js';

// kill -9 of NATS and of PostgreSQL (throwaway servers of this test) under the steady load: while NATS is down
// every write still succeeds (the outboxes hold the events); while PostgreSQL is down requests fail fast and the
// services recover without a restart; afterwards no reminder is lost or delivered twice.
const bin = postgresBin();
const available = NATS_SERVER !== undefined && bin !== undefined;
let world: FaultWorld;
let load: Load;
let nats: Awaited<ReturnType<typeof startNats>>;
let postgres: Awaited<ReturnType<typeof startPostgres>>;
const report: Record<string, unknown>[] = [];

beforeAll(async () => {
  if (!available || !bin) return;
  nats = await startNats();
  postgres = await startPostgres(bin);
  world = await startFaultWorld({ env: { NATS_URL: nats.url }, databaseUrl: postgres.url });
  load = new Load(world);
}, 240_000);
afterAll(async () => {
  await load?.stop();
  if (report.length > 0) console.table(report);
  await world?.close();
  await nats?.close();
  await postgres?.close();
});

// Elsewhere a machine without the servers skips these faults; under CI that would be a green run that proved
// nothing, so it fails instead.
it.runIf(process.env.CI === 'true')('has nats-server and PostgreSQL binaries under CI', () => {
  expect({ natsServer: NATS_SERVER, postgresBin: bin }).toEqual({
    natsServer: expect.any(String),
    postgresBin: expect.any(String),
  });
});

describe.skipIf(!available)('kill -9 of the infrastructure under load', () => {
  it('NATS: every request still succeeds, the events wait in the outboxes', async () => {
    const killedAt = Date.now();
    await nats.kill();
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const restartedAt = Date.now();
    await nats.start();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    load.markFault(killedAt, Date.now());
    const window = load.window(killedAt, Date.now());
    report.push({
      fault: 'kill -9 NATS (5 s)',
      requests: window.requests,
      failed: window.failed,
      'down (ms)': restartedAt - killedAt,
    });
    expect(window.failed, window.failures).toBe(0);
  });

  it('PostgreSQL: requests fail fast while it is down, and the services recover without a restart', async () => {
    const killedAt = Date.now();
    await postgres.kill();
    const down = await world.call('GET', PROBES.task);
    expect(down.status).toBeGreaterThanOrEqual(500);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const restartedAt = Date.now();
    await postgres.start();
    const recoveredMs = await waitUntil(async () => {
      for (const path of Object.values(PROBES)) if ((await world.call('GET', path)).status !== 200) return false;
      return true;
    }, 120_000);
    load.markFault(killedAt, Date.now());
    const window = load.window(killedAt, Date.now());
    report.push({
      fault: 'kill -9 PostgreSQL (3 s)',
      requests: window.requests,
      failed: window.failed,
      'down (ms)': restartedAt - killedAt,
      'restart to all answering (ms)': recoveredMs,
    });
    for (const replica of world.topology.replicas) expect(replica.child?.exitCode, replica.service).toBeNull();
  }, 180_000);

  it('loses no reminder and delivers none twice', async () => {
    await expectEachReminderOnce(
      load,
      10,
      (outcome) => report.push({ fault: 'NATS and PostgreSQL', requests: load.outcomes.length, ...outcome }),
      { signatures: false },
    );
  }, 240_000);
});
