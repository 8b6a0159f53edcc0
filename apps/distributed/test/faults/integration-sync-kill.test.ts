import { FakeGoogle, fetchDeliver } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultWorld, startFaultWorld, waitUntil } from './load.js';

// kill -9 of the integration service in the middle of a 600-event Google sync, then a restart: the sync lease
// of the dead process is free at once (ADR 060), where it used to answer 409 "already running" until it lapsed.
const PUBLIC_BASE_URL = 'http://public.routinely.test';
const EVENTS = 600;

let world: FaultWorld;
let google: FakeGoogle;

beforeAll(async () => {
  google = await FakeGoogle.start({
    deliver: (url, init) => fetchDeliver(url.replace(PUBLIC_BASE_URL, world.topology.gateway.url), init),
  });
  google.pageSize = 100;
  const day = Date.now() + 86_400_000;
  for (let i = 0; i < EVENTS; i++) {
    const start = new Date(day + i * 3_600_000);
    google.addEvent({
      summary: `Event ${i}`,
      start: { dateTime: start.toISOString() },
      end: { dateTime: new Date(start.getTime() + 1_800_000).toISOString() },
    });
  }
  world = await startFaultWorld({
    serviceEnv: {
      integration: {
        ...google.env(),
        PUBLIC_BASE_URL,
        INTEGRATION_POLL_INTERVAL_S: '3600',
        // Longer than any restart takes: a lease that only lapsed would still answer 409 after it.
        INTEGRATION_SYNC_LEASE_MS: '300000',
      },
    },
  });
}, 180_000);
afterAll(async () => {
  await world?.close();
  await google?.close();
});

describe('kill -9 of the integration service during a sync', () => {
  it('the restarted service accepts the next sync of that integration at once', async () => {
    const start = await world.call('POST', '/api/v1/service/integrations/google/oauth/start', { return_url: '/' });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    const { auth_url, integration_id } = start.body as { auth_url: string; integration_id: string };
    const consent = await fetch(auth_url, { redirect: 'manual' });
    const callback = new URL(consent.headers.get('location') ?? '');
    const back = await fetch(`${world.topology.gateway.url}${callback.pathname}${callback.search}`, {
      redirect: 'manual',
    });
    expect(back.headers.get('location')).toContain('status=active');

    // A full sync again (the sync token expired: 410), held at the provider on its second page of six.
    google.expireSyncTokens();
    const stall = google.holdNext(/\/events\?.*pageToken=/);
    const path = `/api/v1/service/integrations/${integration_id}/sync`;
    const inFlight = world.call('POST', path).catch((error: Error) => ({ status: 0, body: error.message }));
    await waitUntil(async () => stall.waiting === 1);
    const second = await world.call('POST', path);
    expect(second.status, 'a live sync keeps its integration').toBe(409);

    const replica = world.topology.replica('integration');
    await world.topology.stop(replica, 'SIGKILL');
    expect((await inFlight).status).not.toBe(200);
    await world.topology.start(replica);
    await waitUntil(async () => (await world.call('GET', '/api/v1/service/integrations')).status === 200);
    stall.release();

    const next = await world.call('POST', path);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body).toMatchObject({ fetched: EVENTS });
  });
});
