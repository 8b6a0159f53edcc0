import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { aliasApiFor, apiFor, startTarget, type Target } from '../src/harness.js';
import { registerUser } from '../src/users.js';

let target: Target;
beforeAll(async () => {
  target = await startTarget();
});
afterAll(() => target?.close());

describe('routines across the task service and the scheduler', () => {
  it('creates the occurrences at once, the scheduler places them in their windows, and the feed shows them', async () => {
    const user = await registerUser(target);
    const api = apiFor(target, user.token);
    const onAlias = aliasApiFor(target, user.token);
    // Working hours are Monday to Friday 09:00-17:00 (UTC for a new user): a 09:00-17:00 window over two weeks
    // holds at least eight weekdays, whatever today is.
    const created = await api.POST('/api/v1/service/tasks', {
      body: {
        title: 'Focus block',
        duration_min: 45,
        recurrence: { rule: 'FREQ=DAILY', window: { start: '09:00', end: '17:00' }, horizon_days: 14 },
      },
    });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    const seriesId = String(created.data?.id);
    expect(created.data).toMatchObject({
      recurrence: { rule: 'FREQ=DAILY', horizon_days: 14, auto_schedule: true },
      series_id: null,
      series_stats: { done: 0, skipped: 0, missed: 0, current_streak: 0, longest_streak: 0 },
    });

    const read = () =>
      onAlias.GET('/api/v1/service/tasks/{task_id}/occurrences', { params: { path: { task_id: seriesId } } });
    const first = await read();
    expect(first.response.status).toBe(200);
    expect(first.data?.items).toHaveLength(15);
    const placed = await vi.waitFor(
      async () => {
        const items = (await read()).data?.items ?? [];
        const scheduled = items.filter((o) => o.status === 'scheduled');
        expect(scheduled.length).toBeGreaterThanOrEqual(8);
        return scheduled;
      },
      { timeout: 30_000, interval: 250 },
    );
    for (const occurrence of placed) {
      expect(occurrence.series_id).toBe(seriesId);
      expect(Date.parse(String(occurrence.chosen_slot_start))).toBeGreaterThanOrEqual(
        Date.parse(String(occurrence.earliest_start_at)),
      );
      expect(Date.parse(String(occurrence.chosen_slot_end))).toBeLessThanOrEqual(
        Date.parse(String(occurrence.deadline_at)),
      );
    }
    // The engine placed them at no model cost.
    const usage = await api.GET('/api/v1/service/llm/usage/today');
    expect(usage.data?.total_usd).toBe(0);

    const feed = await api.POST('/api/v1/service/calendar/feed');
    expect(feed.response.status).toBe(201);
    const token = String(new URL(String(feed.data?.url)).pathname.split('/').at(-1)).replace(/\.ics$/, '');
    // The public feed: no token of the API, the URL's secret is the credential.
    const feedApi = apiFor(target);
    const poll = (headers: Record<string, string> = {}) =>
      feedApi.GET('/api/v1/service/calendar/feed/{token}.ics', {
        params: { path: { token } },
        headers,
        parseAs: 'text',
      });
    const ics = await poll();
    expect(ics.response.status).toBe(200);
    expect(ics.response.headers.get('content-type')).toMatch(/^text\/calendar/);
    // RFC 5545 text (the task service's tests parse it with ical.js): one VEVENT per scheduled occurrence.
    const uids = [...String(ics.data).matchAll(/^UID:(.+?)\r?$/gm)].map((match) => String(match[1]));
    expect(uids.sort()).toEqual(placed.map((o) => `${o.id}@routinely`).sort());
    expect((await poll({ 'if-none-match': `W/${ics.response.headers.get('etag')}` })).response.status).toBe(304);
    expect((await api.DELETE('/api/v1/service/calendar/feed')).response.status).toBe(204);
    expect((await poll()).response.status).toBe(404);
  });

  it('reads a task from text, and creates one from raw_input alone', async () => {
    const user = await registerUser(target);
    const api = apiFor(target, user.token);
    const parsed = await api.POST('/api/v1/service/tasks/parse', {
      body: { text: 'Water the plants every Monday #home p2' },
    });
    expect(parsed.response.status).toBe(200);
    expect(parsed.data).toMatchObject({
      provider: 'builtin',
      cost_usd: 0,
      fields: { title: 'Water the plants', priority: 2, tags: ['home'], recurrence: { rule: 'FREQ=WEEKLY;BYDAY=MO' } },
    });
    const created = await api.POST('/api/v1/service/tasks', { body: { raw_input: 'Call the dentist for 15 min p1' } });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({ title: 'Call the dentist', duration_min: 15, priority: 1 });
  });
});
