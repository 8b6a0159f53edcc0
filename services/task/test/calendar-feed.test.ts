import type { TestUser } from '@routinely/testkit';
import { sqlRows, sqlRun } from '@routinely/testkit';
import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduledTask } from './calendar-helpers.js';
import { call, createTask, type Harness, startHarness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ PUBLIC_BASE_URL: 'https://routinely.example' });
});
afterAll(() => h?.close());

/** The feed URL's path under the app (the host is PUBLIC_BASE_URL's). */
async function newFeed(user: TestUser): Promise<string> {
  const res = await call(h, user, 'POST', '/service/calendar/feed');
  expect(res.statusCode, res.body).toBe(201);
  const { url } = res.json();
  expect(url).toMatch(/^https:\/\/routinely\.example\/api\/v1\/service\/calendar\/feed\/[A-Za-z0-9_-]{43}\.ics$/);
  return new URL(url).pathname;
}

const poll = (path: string, headers: Record<string, string> = {}) => h.app.inject({ url: path, headers });

function vevents(body: string) {
  return new ICAL.Component(ICAL.parse(body)).getAllSubcomponents('vevent').map((component) => ({
    uid: component.getFirstPropertyValue('uid'),
    summary: component.getFirstPropertyValue('summary'),
    status: component.getFirstPropertyValue('status'),
    start: new ICAL.Event(component).startDate.toJSDate().toISOString(),
  }));
}

describe('calendar feed', () => {
  it('shows each scheduled task once, answers 304 to a poll with its ETag, and stops at rotation and revocation', async () => {
    h.clock.set('2026-11-21T08:00:00Z');
    const user = h.tokens.user();
    const planned = await scheduledTask(h, user, 'Dentist prep', '2026-11-24T09:00:00Z', '2026-11-24T09:30:00Z');
    const skipped = await scheduledTask(h, user, 'Gym', '2026-11-25T18:00:00Z', '2026-11-25T19:00:00Z');
    expect((await call(h, user, 'POST', `/service/calendar/events/${skipped.id}/skip`)).statusCode).toBe(200);
    await createTask(h, user, { title: 'not on the calendar' });
    // Another user's plan never shows.
    await scheduledTask(h, h.tokens.user(), 'Not mine', '2026-11-24T09:00:00Z', '2026-11-24T10:00:00Z');

    const path = await newFeed(user);
    const first = await poll(path);
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toMatch(/^text\/calendar/);
    expect(first.headers['cache-control']).toBe('private, max-age=300');
    expect(vevents(first.body).sort((a, b) => a.start.localeCompare(b.start))).toEqual([
      {
        uid: `${planned.id}@routinely`,
        summary: 'Dentist prep',
        status: 'CONFIRMED',
        start: '2026-11-24T09:00:00.000Z',
      },
      { uid: `${skipped.id}@routinely`, summary: 'Gym', status: 'CANCELLED', start: '2026-11-25T18:00:00.000Z' },
    ]);
    const etag = String(first.headers.etag);
    expect((await poll(path, { 'if-none-match': etag })).statusCode).toBe(304);

    const rotated = await newFeed(user);
    expect((await poll(path)).statusCode).toBe(404);
    expect((await poll(rotated)).statusCode).toBe(200);
    expect((await call(h, user, 'DELETE', '/service/calendar/feed')).statusCode).toBe(204);
    expect((await poll(rotated)).statusCode).toBe(404);
    expect((await poll('/api/v1/service/calendar/feed/not-a-token.ics')).statusCode).toBe(404);
  });

  it('changes its ETag when a task is marked done in the same second it was scheduled', async () => {
    h.clock.set('2026-11-21T08:00:00Z');
    const user = h.tokens.user();
    const task = await scheduledTask(h, user, 'Dentist prep', '2026-11-24T09:00:00Z', '2026-11-24T09:30:00Z');
    const path = await newFeed(user);
    const before = await poll(path);
    expect((await call(h, user, 'POST', `/service/calendar/events/${task.id}/done`)).statusCode).toBe(200);
    const after = await poll(path, { 'if-none-match': String(before.headers.etag) });
    expect(after.statusCode).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it('compares If-None-Match as RFC 9110 says: weakly, in a list, and *', async () => {
    const user = h.tokens.user();
    await scheduledTask(h, user, 'Gym', '2026-11-25T18:00:00Z', '2026-11-25T19:00:00Z');
    const path = await newFeed(user);
    const etag = String((await poll(path)).headers.etag);
    for (const field of [`W/${etag}`, `"other", ${etag}`, `"other",W/${etag}`, '*']) {
      const res = await poll(path, { 'if-none-match': field });
      expect(res.statusCode, field).toBe(304);
      expect(res.body).toBe('');
      expect(res.headers.etag).toBe(etag);
    }
    for (const field of ['"other"', etag.slice(1, -1), `W/"x${etag.slice(1)}`]) {
      expect((await poll(path, { 'if-none-match': field })).statusCode, field).toBe(200);
    }
  });

  it('answers only the URL it handed out: a trailing slash or percent-encoding is 404', async () => {
    const user = h.tokens.user();
    const path = await newFeed(user);
    expect((await poll(path)).statusCode).toBe(200);
    const token = path.split('/').at(-1)?.replace('.ics', '') as string;
    const encoded = `%${token.charCodeAt(0).toString(16).toUpperCase()}${token.slice(1)}`;
    const base = path.slice(0, -`${token}.ics`.length);
    for (const variant of [`${path}/`, `${base}${encoded}.ics`, `${base}${token}%2Eics`, `${base}${token}%2eics`]) {
      const res = await poll(variant);
      expect(res.statusCode, variant).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
    // The alias mount serves the same canonical path.
    expect((await poll(path.replace('/api/v1/', '/v1/'))).statusCode).toBe(200);
  });

  it('keeps the upcoming events first when the window holds more than 5,000', { timeout: 120_000 }, async () => {
    const base = Date.parse('2026-11-21T08:00:00Z');
    const slot = (n: number) => new Date(base + n * 5 * 60_000).toISOString();
    h.clock.set(slot(0));
    const user = h.tokens.user();
    // One 4-minute task every 5 minutes: 100 before now, 5,100 from now on, written at once.
    await sqlRun(
      h.orm,
      `insert into tasks (id, tenant_id, user_id, depth, sort_order, title, status, priority, duration_min,
         reminder_channels, reminder_offset_min, tags, chosen_slot_start, chosen_slot_end, created_at, updated_at)
       select gen_random_uuid(), ?, ?, 1, n, 'task ' || n, 'scheduled', 3, 4, '{}', 10, '{}',
         ?::timestamptz + n * interval '5 minutes', ?::timestamptz + n * interval '5 minutes' + interval '4 minutes',
         ?, ?
       from generate_series(-100, 5099) as n`,
      [user.tenantId, user.userId, slot(0), slot(0), slot(-200), slot(-200)],
    );
    const path = await newFeed(user);
    const starts = async () => {
      const body = (await poll(path)).body;
      return [...body.matchAll(/^DTSTART:(\d{8}T\d{6}Z)\r$/gm)].map((m) => String(m[1])).sort();
    };
    const ics = (n: number) => slot(n).replace(/[-:]|\.\d{3}/g, '');
    // The 5,000 soonest upcoming ones; no past one.
    const now = await starts();
    expect([now.length, now[0], now.at(-1)]).toEqual([5000, ics(0), ics(4999)]);

    // With 100 upcoming left, the 4,900 most recent past ones fill the cap.
    h.clock.set(slot(5000));
    const later = await starts();
    expect([later.length, later[0], later.at(-1)]).toEqual([5000, ics(100), ics(5099)]);
  });

  it('stores only a hash of the token', async () => {
    const user = h.tokens.user();
    const path = await newFeed(user);
    const token = path.split('/').at(-1)?.replace('.ics', '') as string;
    const stored = await sqlRows(h.orm, 'select token_hash from calendar_feeds where user_id = ?', [user.userId]);
    expect(stored).toHaveLength(1);
    const [row] = stored as { token_hash: string }[];
    expect(row?.token_hash).not.toContain(token);
    expect(row?.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
