import type { TestUser } from '@routinely/testkit';
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

  it('stores only a hash of the token', async () => {
    const user = h.tokens.user();
    const path = await newFeed(user);
    const token = path.split('/').at(-1)?.replace('.ics', '') as string;
    const stored = await h.orm.em
      .getConnection()
      .execute('select token_hash from calendar_feeds where user_id = ?', [user.userId]);
    expect(stored).toHaveLength(1);
    const [row] = stored as { token_hash: string }[];
    expect(row?.token_hash).not.toContain(token);
    expect(row?.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
