// The server's own timezone must never leak into calendar math: this file runs with the process in a zone far
// from both UTC and the user's (each test file gets its own process, so the setting stays here).
process.env.TZ = 'Pacific/Chatham';

import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { externalFor, listEvents, publishHandled, scheduledTask, timezoneEvent, upserted } from './calendar-helpers.js';
import { call, type Harness, startHarness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

/** A user whose timezone the auth service reported as `zone`. */
async function userIn(zone: string | null): Promise<TestUser> {
  const user = h.tokens.user();
  await publishHandled(h.transport, timezoneEvent(user, zone, h.clock.now()));
  return user;
}

describe('default windows in the user timezone (server process in Pacific/Chatham)', () => {
  it('runs with a non-UTC process timezone', () => {
    expect(new Date('2026-01-15T00:00:00Z').getTimezoneOffset()).not.toBe(0);
  });

  it('starts today at local midnight and counts local days across the end of daylight saving time', async () => {
    // 08:00 in New York on Saturday 2026-10-31 (EDT, UTC-4); clocks go back on Sunday 2026-11-01.
    h.clock.set('2026-10-31T12:00:00.000Z');
    const user = await userIn('America/New_York');
    const windows = {
      day: ['2026-10-31T04:00:00.000Z', '2026-11-01T04:00:00.000Z'],
      // Seven local days are 7 x 24 h + 1 h here: the week ends at local midnight in EST (UTC-5).
      week: ['2026-10-31T04:00:00.000Z', '2026-11-07T05:00:00.000Z'],
      // One calendar month from October 31 is November 30 (the day clamped to the month's end).
      month: ['2026-10-31T04:00:00.000Z', '2026-11-30T05:00:00.000Z'],
      agenda: ['2026-10-31T04:00:00.000Z', '2026-11-30T05:00:00.000Z'],
    };
    for (const [view, [from, to]] of Object.entries(windows)) {
      expect(await listEvents(h, user, `view=${view}`)).toMatchObject({ from, to, view, events: [] });
    }
    expect(await listEvents(h, user, '')).toMatchObject({ view: 'week', from: windows.week[0], to: windows.week[1] });
  });

  it('takes the local date, not the UTC one, and a month of calendar length (January 31 -> February 28)', async () => {
    // 2027-01-31T23:30Z is already February 1 in Tokyo (UTC+9), while still January 31 in UTC.
    h.clock.set('2027-01-31T23:30:00.000Z');
    const tokyo = await userIn('Asia/Tokyo');
    expect(await listEvents(h, tokyo, 'view=day')).toMatchObject({
      from: '2027-01-31T15:00:00.000Z',
      to: '2027-02-01T15:00:00.000Z',
    });
    const utc = await userIn(null);
    expect(await listEvents(h, utc, 'view=month')).toMatchObject({
      from: '2027-01-31T00:00:00.000Z',
      to: '2027-02-28T00:00:00.000Z',
    });
    expect(await listEvents(h, utc, 'view=agenda')).toMatchObject({ to: '2027-03-02T00:00:00.000Z' });
  });

  it('falls back to UTC for a user the auth service never described', async () => {
    h.clock.set('2026-11-21T08:00:00.000Z');
    expect(await listEvents(h, h.tokens.user(), 'view=day')).toMatchObject({
      from: '2026-11-21T00:00:00.000Z',
      to: '2026-11-22T00:00:00.000Z',
    });
  });

  it('measures the view from an explicit from in the user zone, across the start of daylight saving time', async () => {
    const user = await userIn('America/New_York');
    const from = encodeURIComponent('2027-03-01T00:00:00-05:00');
    // March 1 00:00 EST to April 1 00:00 EDT: one calendar month, 31 x 24 h - 1 h.
    expect(await listEvents(h, user, `view=month&from=${from}`)).toMatchObject({
      from: '2027-03-01T05:00:00.000Z',
      to: '2027-04-01T04:00:00.000Z',
    });
  });
});

describe('window and limit rules', () => {
  it('answers 422 naming the field for a local time, a reversed or too long window, a bad view or limit', async () => {
    const user = h.tokens.user();
    const cases: [string, string][] = [
      ['from=2026-11-21T08:00:00', 'from'],
      ['from=2026-11-21T08:00:00Z&to=2026-11-21T08:00:00Z', 'to'],
      ['from=2026-01-01T00:00:00Z&to=2027-01-02T00:00:01Z', 'to'],
      ['view=year', 'view'],
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
    ];
    for (const [query, field] of cases) {
      const res = await call(h, user, 'GET', `/service/calendar/events?${query}`);
      expect(res.statusCode, query).toBe(422);
      expect(res.json().errors[0].loc, query).toEqual(['query', field]);
    }
    // Exactly 366 days is allowed.
    await listEvents(h, user, 'from=2026-01-01T00:00:00Z&to=2027-01-02T00:00:00Z');
  });

  it('merges tasks and provider events sorted by start and cuts at limit', async () => {
    const user = h.tokens.user();
    await scheduledTask(h, user, 'third', '2026-11-21T12:00:00Z', '2026-11-21T13:00:00Z');
    await scheduledTask(h, user, 'first', '2026-11-21T09:00:00Z', '2026-11-21T09:30:00Z');
    await publishHandled(
      h.transport,
      upserted(user, externalFor({ title: 'second', start: '2026-11-21T10:00:00Z', end: '2026-11-21T11:00:00Z' })),
    );
    const window = 'from=2026-11-21T00:00:00Z&to=2026-11-22T00:00:00Z';
    const all = await listEvents(h, user, window);
    expect(all.events.map((e) => [e.title, e.source])).toEqual([
      ['first', 'task'],
      ['second', 'google'],
      ['third', 'task'],
    ]);
    const cut = await listEvents(h, user, `${window}&limit=2`);
    expect(cut.events.map((e) => e.title)).toEqual(['first', 'second']);
    // The /v1 alias mount answers the same.
    const alias = await h.app.inject({
      url: `/v1/service/calendar/events?${window}`,
      headers: await h.tokens.auth(user),
    });
    expect(alias.json().events).toEqual(all.events);
  });
});
