import { FakeGoogle, fetchDeliver } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultWorld, startFaultWorld, waitUntil } from './load.js';

// Kill -9 of the integration service after a task's slot change is committed and while its event
// insert is at the provider, then a restart: exactly one event upstream, at the task's slot. The insert is held
// at the fake until the process is dead, then let through, so the provider applies a call whose answer nobody
// reads; the restarted service writes the task again once the dead process's claim lapses (3 s here instead of
// the default 60 s) and finds the event by its client-chosen id instead of making a second one.
const PUBLIC_BASE_URL = 'http://public.routinely.test';

let world: FaultWorld;
let google: FakeGoogle;

beforeAll(async () => {
  google = await FakeGoogle.start({
    deliver: (url, init) => fetchDeliver(url.replace(PUBLIC_BASE_URL, world.topology.gateway.url), init),
  });
  world = await startFaultWorld({
    serviceEnv: {
      integration: {
        ...google.env(),
        PUBLIC_BASE_URL,
        INTEGRATION_POLL_INTERVAL_S: '3600',
        INTEGRATION_WRITE_BACK_CLAIM_MS: '3000',
      },
    },
  });
}, 180_000);
afterAll(async () => {
  await world?.close();
  await google?.close();
});

describe('kill -9 of the integration service between the commit and the provider call', () => {
  it('leaves exactly one event upstream, at the slot', async () => {
    const start = await world.call('POST', '/api/v1/service/integrations/google/oauth/start', { return_url: '/' });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    const { auth_url, integration_id } = start.body as { auth_url: string; integration_id: string };
    const consent = await fetch(auth_url, { redirect: 'manual' });
    const callback = new URL(consent.headers.get('location') ?? '');
    const back = await fetch(`${world.topology.gateway.url}${callback.pathname}${callback.search}`, {
      redirect: 'manual',
    });
    expect(back.headers.get('location')).toContain('status=active');
    const enabled = await world.call('PATCH', `/api/v1/service/integrations/${integration_id}`, {
      write_back: { enabled: true, show_as: 'details' },
    });
    expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);

    // The first event insert into the written calendar (not the primary calendar's reads) waits at the fake.
    const stall = google.holdNext(/\/calendars\/(?!primary)[^/?]+\/events$/);
    const task = await world.call('POST', '/api/v1/service/tasks', { title: 'Quarterly review', duration_min: 60 });
    expect(task.status).toBe(201);
    const taskId = (task.body as { id: string }).id;
    const slot = { chosen_slot_start: '2030-01-07T10:00:00.000Z', chosen_slot_end: '2030-01-07T11:00:00.000Z' };
    const placed = await world.call('PATCH', `/api/v1/service/tasks/${taskId}`, slot);
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    await waitUntil(async () => stall.waiting === 1, 30_000);

    const replica = world.topology.replica('integration');
    await world.topology.stop(replica, 'SIGKILL');
    stall.release();
    await world.topology.start(replica);

    const events = () => google.written.live().filter((e) => JSON.stringify(e.body).includes(taskId));
    const writeBack = async () => {
      const list = await world.call('GET', '/api/v1/service/integrations');
      const rows = list.body as { id: string; write_back: { last_error: string | null } }[];
      return rows.find((i) => i.id === integration_id)?.write_back;
    };
    // The held insert went nowhere or was applied with its answer lost; either way the restarted service writes
    // the task once the dead process's claim lapses. Two more claim periods later there is still one event.
    await waitUntil(async () => events().length > 0, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    expect(events()).toHaveLength(1);
    const body = events()[0]?.body as { summary: string; start: { dateTime: string }; end: { dateTime: string } };
    expect(body.summary).toBe('Quarterly review');
    expect(new Date(body.start.dateTime).toISOString()).toBe(slot.chosen_slot_start);
    expect(new Date(body.end.dateTime).toISOString()).toBe(slot.chosen_slot_end);
    expect((await writeBack())?.last_error).toBeNull();
  });
});
