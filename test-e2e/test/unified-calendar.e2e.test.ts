import {
  type Deliver,
  defined,
  FakeGoogle,
  FakeLlmServer,
  FakeMicrosoft,
  fakeLlmEnv,
  fetchDeliver,
} from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLettered } from '../src/dead-letters.js';
import { apiFor, startLocalAllInOne, startLocalDistributed, targetAt } from '../src/harness.js';
import { fetchUndocumented } from '../src/undocumented.js';
import { registerUser } from '../src/users.js';

// The integration service and the task service's unified calendar together, in both topologies (the
// all-in-one in one process; the six processes behind the gateway): a Google and a Microsoft calendar (the
// testkit fakes, speaking the real protocols) connected, synced, changed, pushed and disconnected, checked
// through the calendar and free/busy routes a client reads. Each topology is this file's own: the fakes'
// addresses are settings the shared topology does not have. The model fake rides along (its address is such a
// setting too), so the soft-cap bell (delivery.quota-notices) is checked here without a topology of its own.
const PUBLIC_BASE_URL = 'http://public.routinely.test';

let google: FakeGoogle;
let microsoft: FakeMicrosoft;
let llm: FakeLlmServer;
let baseUrl = '';
const target = () => targetAt(baseUrl);

/** The fake reaches "the public base URL" (push notifications) at the instance under test. */
const deliver: Deliver = (url, init) => fetchDeliver(url.replace(PUBLIC_BASE_URL, baseUrl), init);

const providerEnv = () => ({
  ...google.env(),
  ...microsoft.env(),
  ...fakeLlmEnv(llm),
  PUBLIC_BASE_URL,
  INTEGRATION_POLL_INTERVAL_S: '3600',
});

const topologies = {
  'all-in-one': async () => {
    const local = await startLocalAllInOne(providerEnv());
    return { url: local.running.url, close: local.close };
  },
  distributed: () => startLocalDistributed(providerEnv()),
};

/** What the test asks of a provider's calendar, in each provider's own shapes. */
interface ProviderCalendar {
  add(id: string, title: string, start: string, end: string, free?: boolean): void;
  cancel(id: string): void;
  notify(): Promise<number[]>;
}

const providers: Record<'google' | 'microsoft', () => ProviderCalendar> = {
  google: () => ({
    add: (id, summary, start, end, free) =>
      google.addEvent({
        id,
        summary,
        start: { dateTime: start },
        end: { dateTime: end },
        ...(free ? { transparency: 'transparent' as const } : {}),
      }),
    cancel: (id) => google.cancelEvent(id),
    notify: () => google.notify(),
  }),
  microsoft: () => ({
    // Graph's offset-less wall time with its zone, as Outlook answers.
    add: (id, subject, start, end, free) =>
      microsoft.addEvent({
        id,
        subject,
        start: { dateTime: start.replace('.000Z', '.0000000'), timeZone: 'UTC' },
        end: { dateTime: end.replace('.000Z', '.0000000'), timeZone: 'UTC' },
        ...(free ? { showAs: 'free' as const } : {}),
      }),
    cancel: (id) => microsoft.cancelEvent(id),
    notify: () => microsoft.notify(),
  }),
};

const day = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
const at = (hhmm: string) => `${day}T${hhmm}:00.000Z`;
const window = { from: at('00:00'), to: `${day}T23:59:00.000Z` };

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Connects the provider's calendar for the user: oauth/start, the provider's consent (the fake consents at
 * once), the browser's callback. Answers the integration's id.
 */
async function connect(api: ReturnType<typeof apiFor>, provider: 'google' | 'microsoft'): Promise<string> {
  const start = await api.POST('/api/v1/service/integrations/{provider}/oauth/start', {
    params: { path: { provider } },
    body: { return_url: '/settings' },
  });
  expect(start.response.status, JSON.stringify(start.error)).toBe(200);
  const authorization = defined(start.data, 'the authorization');
  // The provider's consent page is the fake's, not ours: a plain fetch.
  const consent = await fetch(authorization.auth_url, { redirect: 'manual' });
  const callback = new URL(consent.headers.get('location') ?? '');
  // The browser's OAuth callback is left out of the document on purpose (a navigation, not an API call).
  const back = await fetchUndocumented(target(), `${callback.pathname}${callback.search}`);
  expect(back.status).toBe(302);
  expect(back.headers.get('location')).toContain('status=active');
  return authorization.integration_id;
}

describe.each(Object.keys(topologies) as (keyof typeof topologies)[])('%s', (topology) => {
  let running: Awaited<ReturnType<(typeof topologies)[typeof topology]>> | undefined;
  // Fresh provider calendars for each topology: the fakes keep their events.
  beforeAll(async () => {
    google = await FakeGoogle.start({ deliver });
    microsoft = await FakeMicrosoft.start({ deliver });
    llm = await FakeLlmServer.start();
    running = await topologies[topology]();
    baseUrl = running.url;
  }, 120_000);
  afterAll(async () => {
    await running?.close();
    await google?.close();
    await microsoft?.close();
    await llm?.close();
  });

  describe.each(['google', 'microsoft'] as const)('unified calendar fed by a connected %s calendar', (provider) => {
    it('shows synced events, merges free/busy with tasks, follows changes and pushes, and forgets them on disconnect', async () => {
      const calendar = providers[provider]();
      const user = await registerUser(target());
      const api = apiFor(target(), user.token);
      const events = async () =>
        defined((await api.GET('/api/v1/service/calendar/events', { params: { query: window } })).data, 'the events')
          .events;

      calendar.add('standup', 'Standup', at('10:00'), at('11:00'));
      calendar.add('focus', 'Focus', at('14:00'), at('15:00'), true);
      const task = await api.POST('/api/v1/service/tasks', { body: { title: 'Review', duration_min: 60 } });
      expect(task.response.status).toBe(201);
      const taskId = String(task.data?.id);
      const scheduled = await api.PATCH('/api/v1/service/tasks/{task_id}', {
        params: { path: { task_id: taskId } },
        body: { chosen_slot_start: at('10:30'), chosen_slot_end: at('11:30') },
      });
      expect(scheduled.response.status).toBe(200);

      const integrationId = await connect(api, provider);
      const integration = { params: { path: { integration_id: integrationId } } };

      // The first sync's events reach the task service's read model through the outbox and a consumer.
      // Each event travels on its own, so wait for both of the first sync's events.
      const synced = await until('the synced events', events, (list) =>
        ['standup', 'focus'].every((id) => list.some((e) => e.external_id === id)),
      );
      const standup = synced.find((e) => e.external_id === 'standup');
      expect(standup).toMatchObject({ source: provider, title: 'Standup', busy: true, editable: false });
      expect(synced.find((e) => e.external_id === 'focus')).toMatchObject({ busy: false });
      expect(synced.find((e) => e.id === taskId)).toMatchObject({ source: 'task', editable: true });
      const standupEvent = { params: { path: { event_id: String(standup?.id) } } };

      // Free/busy merges the busy event with the overlapping task; the free event is not busy.
      const freeBusy = await api.GET('/api/v1/service/calendar/free-busy', { params: { query: window } });
      expect(freeBusy.data?.busy).toEqual([
        {
          start: at('10:00'),
          end: at('11:30'),
          source: 'mixed',
          sources: expect.arrayContaining([
            { source: provider, id: standup?.id, title: 'Standup' },
            { source: 'task', id: taskId, title: 'Review' },
          ]),
        },
      ]);
      const notEditable = await api.POST('/api/v1/service/calendar/events/{event_id}/done', standupEvent);
      expect(notEditable.response.status).toBe(409);
      expect(notEditable.error?.code).toBe('event_not_editable');

      // Another user sees none of it.
      const stranger = await registerUser(target());
      const hidden = await apiFor(target(), stranger.token).GET(
        '/api/v1/service/calendar/events/{event_id}',
        standupEvent,
      );
      expect(hidden.response.status).toBe(404);

      // A sync on request answers once the unified calendar shows it (read-your-writes, ADR 061): a cancellation
      // and a new event, read once right after the answer.
      calendar.cancel('standup');
      calendar.add('retro', 'Retro', at('16:00'), at('17:00'));
      const sync = await api.POST('/api/v1/service/integrations/{integration_id}/sync', integration);
      expect(sync.response.status, JSON.stringify(sync.error)).toBe(200);
      expect(sync.data).toMatchObject({ created: 1, deleted: 1 });
      const afterSync = await events();
      expect(afterSync.some((e) => e.external_id === 'standup')).toBe(false);
      expect(afterSync.find((e) => e.external_id === 'retro')).toMatchObject({ title: 'Retro', busy: true });

      // A push makes a new event arrive (in the background: nobody waits on a push's answer).
      calendar.add('lunch', 'Lunch', at('12:00'), at('13:00'));
      const pushed = await calendar.notify();
      expect(pushed.length).toBeGreaterThan(0);
      expect(pushed.every((status) => status >= 200 && status < 300)).toBe(true);
      await until('the pushed event', events, (list) => list.some((e) => e.external_id === 'lunch'));

      // Disconnect: the integration is kept as revoked and its events have left the unified calendar by the time
      // the answer comes (read once, right after it).
      const removed = await api.DELETE('/api/v1/service/integrations/{integration_id}', integration);
      expect(removed.response.status).toBe(204);
      expect((await events()).map((e) => e.id)).toEqual([taskId]);
      const integrations = await api.GET('/api/v1/service/integrations');
      expect(integrations.data).toMatchObject([{ id: integrationId, provider, status: 'revoked' }]);
    });
  });

  it('a busy event over an engine-placed task moves it with a bell notice, a lost grant rings the bell, and no calendar consumer dead-letters', async () => {
    const user = await registerUser(target());
    const api = apiFor(target(), user.token);
    const bell = async () => defined((await api.GET('/api/v1/service/notifications')).data, 'the bell').items;
    // Placed by the engine (a slot the user set by hand is the user's choice and never moves), from 09:00 of the
    // test's day: clear of the fake's other events there (Lunch 12:00, Dentist 18:00) whatever time the test runs.
    const earliest = at('09:00');
    const task = await api.POST('/api/v1/service/tasks', {
      body: { title: 'Write the report', duration_min: 60, earliest_start_at: earliest },
    });
    expect(task.response.status, JSON.stringify(task.error)).toBe(201);
    const taskId = String(task.data?.id);
    const run = await api.POST('/api/v1/service/schedule', { body: { task_ids: [taskId] } });
    expect(run.response.status, JSON.stringify(run.error)).toBe(200);
    const decision = defined(run.data && 'decisions' in run.data ? run.data.decisions[0] : undefined, 'the decision');
    const placedAt = new Date(String(decision.chosen_slot_start)).getTime();

    // A busy event over that slot arrives with the first sync: task.external-events applies it and reports it,
    // scheduler.schedule-conflicts queues the check that moves the task, delivery.schedule-conflicts rings.
    google.addEvent({
      id: 'offsite',
      summary: 'Offsite',
      start: { dateTime: new Date(placedAt).toISOString() },
      end: { dateTime: new Date(String(decision.chosen_slot_end)).toISOString() },
    });
    const integrationId = await connect(api, 'google');
    const integration = { params: { path: { integration_id: integrationId } } };
    const notices = await until('the conflict notice', bell, (items) =>
      items.some((n) => n.kind === 'schedule.conflict'),
    );
    expect(notices.find((n) => n.kind === 'schedule.conflict')?.body).toContain('Offsite');
    const moved = await api.GET('/api/v1/service/tasks/{task_id}', { params: { path: { task_id: taskId } } });
    const movedAt = moved.data?.chosen_slot_start ? new Date(moved.data.chosen_slot_start).getTime() : null;
    expect(movedAt).not.toBe(placedAt);

    // A sync on request answers once integration.calendar-acknowledgements recorded the task service's report.
    google.addEvent({
      id: 'dentist',
      summary: 'Dentist',
      start: { dateTime: at('18:00') },
      end: { dateTime: at('19:00') },
    });
    const sync = await api.POST('/api/v1/service/integrations/{integration_id}/sync', integration);
    expect(sync.response.status, JSON.stringify(sync.error)).toBe(200);
    const afterSync = defined(
      (await api.GET('/api/v1/service/calendar/events', { params: { query: window } })).data,
      'the events',
    ).events;
    expect(afterSync.some((e) => e.external_id === 'dentist')).toBe(true);

    // The provider withdrew the grant: the sync fails and delivery.integration-alerts asks for a reconnect.
    google.failRefreshWithInvalidGrant();
    google.expireAccessTokens();
    try {
      const failed = await api.POST('/api/v1/service/integrations/{integration_id}/sync', integration);
      expect(failed.response.status).toBe(409);
    } finally {
      google.failRefreshWithInvalidGrant(false);
    }
    await until('the reconnect notice', bell, (items) => items.some((n) => n.kind === 'integration.reauth_required'));

    expect(
      await deadLettered(target(), user, [
        'task.external-events',
        'integration.calendar-acknowledgements',
        'scheduler.schedule-conflicts',
        'delivery.schedule-conflicts',
        'delivery.integration-alerts',
      ]),
    ).toEqual([]);
  });

  it('a model call past the soft cap an admin set rings the bell once (delivery.quota-notices)', async () => {
    const admin = await registerUser(target());
    const api = apiFor(target(), admin.token);
    // The tenant's admin caps their own spend at a tenth of a cent; the scheduler knows the user once
    // scheduler.users applied the registration, so the first PATCH may meet a 404.
    await until(
      'the soft cap',
      async () => {
        const res = await api.PATCH('/api/v1/service/admin/quotas/{user_id}', {
          params: { path: { user_id: admin.id } },
          body: { soft_cap_usd: 0.001 },
        });
        return { status: res.response.status, error: res.error };
      },
      (res) => res.status === 200,
    );
    // One metered call: 1,000 input tokens at $1/M and 500 output at $2/M cost $0.002, past the cap (counts
    // within the call's budget: the adapter clamps reported counts to it).
    llm.enqueue({
      kind: 'answer',
      document: {
        title: 'Gym',
        duration_min: 60,
        priority: 2,
        deadline_at: null,
        earliest_start_at: null,
        tags: [],
        recurrence: null,
      },
      usage: { inputTokens: 1000, outputTokens: 500 },
    });
    const parsed = await api.POST('/api/v1/service/tasks/parse', { body: { text: 'Gym for 1h', provider: 'openai' } });
    expect(parsed.response.status, JSON.stringify(parsed.error)).toBe(200);
    expect(parsed.data).toMatchObject({ provider: 'openai', cost_usd: 0.002 });

    const bell = async () => defined((await api.GET('/api/v1/service/notifications')).data, 'the bell').items;
    const notices = await until('the soft-cap notice', bell, (items) => items.length > 0);
    expect(notices).toEqual([
      expect.objectContaining({
        kind: 'quota.soft_breached',
        data: expect.objectContaining({ daily_usd: 0.002, soft_cap_usd: 0.001 }),
      }),
    ]);
    expect(await deadLettered(target(), admin, ['delivery.quota-notices'])).toEqual([]);
  });
});
