import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Harness, sqlRows, startHarness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const EVENTS = /\/calendar\/v3\/calendars\/primary\/events\?/;
const leaseOf = async (id: string) => {
  const [row] = await sqlRows<{ until: string | null }>(
    h.orm,
    'select (extract(epoch from sync_lease_until) * 1000)::bigint::text as until from integrations where id = ?',
    [id],
  );
  return row?.until ? new Date(Number(row.until)) : null;
};

/** Ends, from the server's side, the session of the process that owns the integration's lease (a dead client). */
const dropOwnerSession = async (id: string) => {
  const [row] = await sqlRows<{ pid: number }>(
    h.orm,
    `select l.pid from integrations i join pg_locks l
       on l.locktype = 'advisory' and l.objsubid = 1 and l.granted and l.mode = 'ExclusiveLock'
      and ((l.classid::bigint << 32) | l.objid::bigint)
        = hashtextextended('integration.sync-owner:' || i.sync_lease_owner::text, 0)
     where i.id = ?`,
    [id],
  );
  expect(row, 'the lease owner holds its liveness lock').toBeDefined();
  await sqlRows(h.orm, 'select pg_terminate_backend(?)', [row?.pid]);
};

describe('the sync lease', () => {
  it('a sync whose process died frees its integration at once; a live one keeps it', async () => {
    const user = h.tokens.user();
    const { integrationId } = await h.connect(user, 'google');
    const path = `/api/v1/service/integrations/${integrationId}/sync`;
    // A second process on the same database and clock starts a sync that stalls at the provider...
    const doomed = await h.spawn({ start: true });
    const stall = h.google.holdNext(EVENTS);
    const inFlight = doomed.app.inject({ method: 'POST', url: path, headers: await h.tokens.auth(user) });
    await vi.waitFor(() => expect(stall.waiting).toBe(1), { timeout: 10_000 });
    // While it lives, nobody else syncs this integration.
    expect((await h.call(user, 'POST', `/service/integrations/${integrationId}/sync`)).statusCode).toBe(409);
    // ...and dies: it neither renews nor releases its lease, and its session (its liveness lock) is gone.
    await doomed.service.stop();
    const next = await h.call(user, 'POST', `/service/integrations/${integrationId}/sync`);
    expect(next.statusCode, next.body).toBe(200);
    expect(await leaseOf(integrationId)).toBeNull();

    // Should the stalled sync come back after all, its commit is refused: the lease is no longer its own.
    stall.release();
    const late = await inFlight;
    expect(late.statusCode, late.body).toBe(409);
    expect(late.json().detail).toMatch(/took over/);
  });

  it("the holder's database session ending (as a kill -9 ends it) frees the integration at once", async () => {
    const user = h.tokens.user();
    const { integrationId } = await h.connect(user, 'google');
    const path = `/api/v1/service/integrations/${integrationId}/sync`;
    const holder = await h.spawn({ start: true });
    try {
      const stall = h.google.holdNext(EVENTS);
      const inFlight = holder.app.inject({ method: 'POST', url: path, headers: await h.tokens.auth(user) });
      await vi.waitFor(() => expect(stall.waiting).toBe(1), { timeout: 10_000 });
      expect((await h.call(user, 'POST', `/service/integrations/${integrationId}/sync`)).statusCode).toBe(409);

      await dropOwnerSession(integrationId);
      const next = await h.call(user, 'POST', `/service/integrations/${integrationId}/sync`);
      expect(next.statusCode, next.body).toBe(200);
      stall.release();
      expect((await inFlight).statusCode).toBe(409);
      // The holder lived on: it takes its liveness lock again and syncs as before.
      const again = await holder.app.inject({ method: 'POST', url: path, headers: await h.tokens.auth(user) });
      expect(again.statusCode, again.body).toBe(200);
    } finally {
      await holder.service.stop();
    }
  });

  it('a running sync renews its lease, so a slow sync keeps its integration past the TTL', async () => {
    const user = h.tokens.user();
    const { integrationId } = await h.connect(user, 'google');
    const path = `/service/integrations/${integrationId}/sync`;
    // A short lease renews every 500 ms of real time; the clock the lease is measured by is the test's.
    const slow = await h.spawn({ start: true, env: { INTEGRATION_SYNC_LEASE_MS: '2000' } });
    const stall = h.google.holdNext(EVENTS);
    const running = slow.app.inject({ method: 'POST', url: `/api/v1${path}`, headers: await h.tokens.auth(user) });
    await vi.waitFor(() => expect(stall.waiting).toBe(1), { timeout: 10_000 });
    h.clock.advance(60_000);
    // The renewal moves the lease past the advanced clock: the sync is still known to be running.
    await vi.waitFor(
      async () => expect((await leaseOf(integrationId))?.getTime()).toBeGreaterThan(h.clock.now().getTime()),
      {
        timeout: 10_000,
      },
    );
    expect((await h.call(user, 'POST', path)).statusCode).toBe(409);
    stall.release();
    const done = await running;
    expect(done.statusCode, done.body).toBe(200);
    expect(await leaseOf(integrationId)).toBeNull();
    expect((await h.call(user, 'POST', path)).statusCode).toBe(200);
  });
});
