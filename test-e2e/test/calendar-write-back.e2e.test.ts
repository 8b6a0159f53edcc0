import { type Deliver, defined, FakeGoogle, fetchDeliver } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFor, startLocalDistributed, targetAt } from '../src/harness.js';
import { fetchUndocumented } from '../src/undocumented.js';
import { registerUser } from '../src/users.js';

// Calendar write-back (ADR 063) in the distributed topology: the six processes behind the gateway, the task
// service's outbox events reaching the integration service over NATS, the Google fake at loopback. One round
// trip: turn write-back on, schedule a task, see its event in the fake's calendar, move it, turn it off.
const PUBLIC_BASE_URL = 'http://public.routinely.test';

let google: FakeGoogle;
let baseUrl = '';
let running: Awaited<ReturnType<typeof startLocalDistributed>> | undefined;
const target = () => targetAt(baseUrl);
const deliver: Deliver = (url, init) => fetchDeliver(url.replace(PUBLIC_BASE_URL, baseUrl), init);

beforeAll(async () => {
  google = await FakeGoogle.start({ deliver });
  running = await startLocalDistributed({ ...google.env(), PUBLIC_BASE_URL, INTEGRATION_POLL_INTERVAL_S: '3600' });
  baseUrl = running.url;
}, 120_000);
afterAll(async () => {
  await running?.close();
  await google?.close();
});

async function until<T>(what: string, read: () => Promise<T> | T, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const day = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
const at = (hhmm: string) => `${day}T${hhmm}:00.000Z`;

describe('distributed: calendar write-back through the gateway', () => {
  it('enable, schedule, move, and disable: the event follows the task and the calendar goes', async () => {
    const user = await registerUser(target());
    const api = apiFor(target(), user.token);
    const start = await api.POST('/api/v1/service/integrations/{provider}/oauth/start', {
      params: { path: { provider: 'google' } },
      body: { return_url: '/settings' },
    });
    const authorization = defined(start.data, 'the authorization');
    const consent = await fetch(authorization.auth_url, { redirect: 'manual' });
    const callback = new URL(consent.headers.get('location') ?? '');
    expect((await fetchUndocumented(target(), `${callback.pathname}${callback.search}`)).status).toBe(302);
    const integration = { params: { path: { integration_id: authorization.integration_id } } };

    const on = await api.PATCH('/api/v1/service/integrations/{integration_id}', {
      ...integration,
      body: { write_back: { enabled: true, show_as: 'details' } },
    });
    expect(on.response.status, JSON.stringify(on.error)).toBe(200);
    const calendars = () => [...google.written.calendars.values()];
    const [calendar] = await until('the dedicated calendar', calendars, (list) => list.length === 1);

    const task = await api.POST('/api/v1/service/tasks', { body: { title: 'Write the report', duration_min: 60 } });
    const taskId = String(task.data?.id);
    const path = { params: { path: { task_id: taskId } } };
    await api.PATCH('/api/v1/service/tasks/{task_id}', {
      ...path,
      body: { chosen_slot_start: at('09:00'), chosen_slot_end: at('10:00') },
    });
    const startOf = () => google.written.live(calendar?.id).map((e) => (e.body.start as { dateTime: string }).dateTime);
    await until('the written event', startOf, (starts) => starts.join() === at('09:00'));
    expect(google.written.live(calendar?.id)[0]?.body.summary).toBe('Write the report');

    await api.PATCH('/api/v1/service/tasks/{task_id}', {
      ...path,
      body: { chosen_slot_start: at('14:00'), chosen_slot_end: at('15:00') },
    });
    await until('the moved event', startOf, (starts) => starts.join() === at('14:00'));

    // Never counted twice: after a sync the unified calendar shows the task once and no copy of its event.
    expect((await api.POST('/api/v1/service/integrations/{integration_id}/sync', integration)).response.status).toBe(
      200,
    );
    const events = await api.GET('/api/v1/service/calendar/events', {
      params: { query: { from: at('00:00'), to: `${day}T23:59:00.000Z` } },
    });
    expect(defined(events.data, 'the events').events.map((e) => e.id)).toEqual([taskId]);

    const read = await api.GET('/api/v1/service/integrations');
    expect(read.data?.[0]?.write_back).toMatchObject({ enabled: true, calendar_id: calendar?.id, last_error: null });
    expect(read.data?.[0]?.write_back.last_written_at).not.toBeNull();

    await api.PATCH('/api/v1/service/integrations/{integration_id}', {
      ...integration,
      body: { write_back: { enabled: false } },
    });
    await until('the calendar deleted', calendars, (list) => list.length === 0);
  });
});
