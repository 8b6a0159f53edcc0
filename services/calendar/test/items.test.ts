import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorLocs, type Harness, startHarness } from './harness.js';

let h: Harness;
let owner: TestUser;
beforeAll(async () => {
  h = await startHarness();
  owner = h.user();
});
afterAll(() => h?.close());

async function calendar(timezone = 'UTC'): Promise<string> {
  return (await h.createCalendar(owner, { name: 'Items', timezone })).id;
}

async function addItem(calendarId: string, body: Record<string, unknown>) {
  const res = await h.call(owner, 'POST', `/calendars/${calendarId}/items`, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

const ids = (body: { items: { title: string }[] }) => body.items.map((i) => i.title);

describe('calendar items', () => {
  it('creates an item with the contract shape and defaults, normalising times to Z', async () => {
    const cal = await calendar();
    const item = await addItem(cal, {
      title: 'Dentist',
      location: 'Main St',
      start_at: '2026-11-23T09:00:00+01:00',
      end_at: '2026-11-23T10:30:00+01:00',
    });
    expect(item).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      calendar_id: cal,
      type: 'event',
      title: 'Dentist',
      description: null,
      location: 'Main St',
      start_at: '2026-11-23T08:00:00.000Z',
      end_at: '2026-11-23T09:30:00.000Z',
      all_day: false,
      status: 'confirmed',
      created_by: owner.userId,
      created_at: h.clock.now().toISOString(),
      updated_at: h.clock.now().toISOString(),
    });
  });

  it('answers items overlapping the window, inclusive of the end date', async () => {
    const cal = await calendar();
    await addItem(cal, { title: 'before', start_at: '2026-11-09T10:00:00Z', end_at: '2026-11-09T23:00:00Z' });
    await addItem(cal, { title: 'ends-at-start', start_at: '2026-11-09T22:00:00Z', end_at: '2026-11-10T00:00:00Z' });
    await addItem(cal, { title: 'spans-start', start_at: '2026-11-09T22:00:00Z', end_at: '2026-11-10T01:00:00Z' });
    await addItem(cal, { title: 'inside', start_at: '2026-11-11T10:00:00Z', end_at: '2026-11-11T11:00:00Z' });
    await addItem(cal, { title: 'covers', start_at: '2026-11-01T00:00:00Z', end_at: '2026-12-01T00:00:00Z' });
    await addItem(cal, { title: 'last-day', start_at: '2026-11-12T23:30:00Z', end_at: '2026-11-13T00:30:00Z' });
    await addItem(cal, { title: 'after', start_at: '2026-11-13T00:00:00Z', end_at: '2026-11-13T01:00:00Z' });
    const res = await h.call(owner, 'GET', `/calendars/${cal}/items?start_date=2026-11-10&end_date=2026-11-12`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ calendar_id: cal, start_date: '2026-11-10', end_date: '2026-11-12', total: 4 });
    expect(ids(body)).toEqual(['covers', 'spans-start', 'inside', 'last-day']);
  });

  it('places the window on date boundaries of the calendar timezone', async () => {
    const cal = await calendar('America/New_York');
    // 2026-11-10 in New York is 05:00Z..05:00Z next day (EST, UTC-5).
    await addItem(cal, { title: 'late-evening-ny', start_at: '2026-11-11T03:00:00Z', end_at: '2026-11-11T04:00:00Z' });
    await addItem(cal, { title: 'early-next-day', start_at: '2026-11-11T05:00:00Z', end_at: '2026-11-11T06:00:00Z' });
    const res = await h.call(owner, 'GET', `/calendars/${cal}/items?start_date=2026-11-10&end_date=2026-11-10`);
    expect(ids(res.json())).toEqual(['late-evening-ny']);
  });

  it('filters by item_types (repeatable), status, and hides cancelled items unless asked', async () => {
    const cal = await calendar();
    const base = { start_at: '2026-11-10T10:00:00Z', end_at: '2026-11-10T11:00:00Z' };
    await addItem(cal, { ...base, title: 'm', type: 'meeting' });
    await addItem(cal, { ...base, title: 'e', type: 'event', status: 'tentative' });
    const task = await addItem(cal, { ...base, title: 't', type: 'task' });
    const cancel = await h.call(owner, 'DELETE', `/calendars/${cal}/items/${task.id}`);
    expect(cancel.json().status).toBe('cancelled');
    const q = (query: string) =>
      h.call(owner, 'GET', `/calendars/${cal}/items?start_date=2026-11-10&end_date=2026-11-10&${query}`);
    expect(ids((await q('')).json()).sort()).toEqual(['e', 'm']);
    expect(ids((await q('include_cancelled=true')).json()).sort()).toEqual(['e', 'm', 't']);
    expect(ids((await q('item_types=meeting&item_types=task&include_cancelled=true')).json()).sort()).toEqual([
      'm',
      't',
    ]);
    expect(ids((await q('item_types=meeting,event')).json()).sort()).toEqual(['e', 'm']);
    expect(ids((await q('status=tentative')).json())).toEqual(['e']);
    expect(ids((await q('status=cancelled')).json())).toEqual(['t']);
    const bad = await q('item_types=holiday');
    expect(bad.statusCode).toBe(422);
  });

  it('validates the window query', async () => {
    const cal = await calendar();
    for (const [query, loc] of [
      ['end_date=2026-11-10', 'query.start_date'],
      ['start_date=2026-11-10', 'query.end_date'],
      ['start_date=2026-11-10T00:00:00Z&end_date=2026-11-11', 'query.start_date'],
      ['start_date=2026-11-10&end_date=2026-11-09', 'query.end_date'],
      ['start_date=2026-01-01&end_date=2027-12-31', 'query.end_date'],
      ['start_date=2026-11-10&end_date=2026-11-11&include_cancelled=yes', 'query.include_cancelled'],
    ]) {
      const res = await h.call(owner, 'GET', `/calendars/${cal}/items?${query}`);
      expect(res.statusCode, query).toBe(422);
      expect(errorLocs(res)).toContain(loc);
    }
  });

  it('requires end after start and all-day items on local midnights of the calendar timezone', async () => {
    const cal = await calendar('Europe/Berlin');
    const post = (body: Record<string, unknown>) =>
      h.call(owner, 'POST', `/calendars/${cal}/items`, { title: 'x', ...body });
    const same = await post({ start_at: '2026-11-10T10:00:00Z', end_at: '2026-11-10T10:00:00Z' });
    expect(same.statusCode).toBe(422);
    expect(same.json().errors[0].loc).toEqual(['body', 'end_at']);
    const noOffset = await post({ start_at: '2026-11-10T10:00:00', end_at: '2026-11-10T11:00:00Z' });
    expect(noOffset.statusCode).toBe(422);
    // Midnight UTC is 01:00 in Berlin: not a boundary there.
    const utcMidnight = await post({ all_day: true, start_at: '2026-11-10T00:00:00Z', end_at: '2026-11-11T00:00:00Z' });
    expect(utcMidnight.statusCode).toBe(422);
    expect(utcMidnight.json().errors[0].loc).toEqual(['body', 'start_at']);
    const winter = await post({
      all_day: true,
      start_at: '2026-11-10T00:00:00+01:00',
      end_at: '2026-11-11T00:00:00+01:00',
    });
    expect(winter.statusCode).toBe(201);
    expect(winter.json()).toMatchObject({
      all_day: true,
      start_at: '2026-11-09T23:00:00.000Z',
      end_at: '2026-11-10T23:00:00.000Z',
    });
    // Across the switch to summer time (29 March 2026) the day is 23 hours long.
    const dst = await post({
      all_day: true,
      start_at: '2026-03-29T00:00:00+01:00',
      end_at: '2026-03-30T00:00:00+02:00',
    });
    expect(dst.statusCode).toBe(201);
    const badEnd = await post({
      all_day: true,
      start_at: '2026-11-10T00:00:00+01:00',
      end_at: '2026-11-10T12:00:00+01:00',
    });
    expect(badEnd.json().errors[0].loc).toEqual(['body', 'end_at']);
    // The all-day item is found on its local date, not on the UTC date it starts on.
    const found = await h.call(owner, 'GET', `/calendars/${cal}/items?start_date=2026-11-10&end_date=2026-11-10`);
    expect(found.json().items.map((i: { id: string }) => i.id)).toEqual([winter.json().id]);
    const dayBefore = await h.call(owner, 'GET', `/calendars/${cal}/items?start_date=2026-11-09&end_date=2026-11-09`);
    expect(dayBefore.json().total).toBe(0);
  });

  it('updates only given fields, re-validating merged times, and restores a cancelled item', async () => {
    const cal = await calendar();
    const item = await addItem(cal, {
      title: 'Call',
      start_at: '2026-11-10T10:00:00Z',
      end_at: '2026-11-10T11:00:00Z',
    });
    h.clock.advance(1_000);
    const moved = await h.call(owner, 'PATCH', `/calendars/${cal}/items/${item.id}`, {
      start_at: '2026-11-10T10:30:00Z',
    });
    expect(moved.json()).toMatchObject({
      title: 'Call',
      start_at: '2026-11-10T10:30:00.000Z',
      end_at: '2026-11-10T11:00:00.000Z',
    });
    expect(moved.json().updated_at).toBe(h.clock.now().toISOString());
    const past = await h.call(owner, 'PATCH', `/calendars/${cal}/items/${item.id}`, {
      start_at: '2026-11-10T12:00:00Z',
    });
    expect(past.statusCode).toBe(422);
    expect(past.json().errors[0].loc).toEqual(['body', 'start_at']);
    const notDay = await h.call(owner, 'PATCH', `/calendars/${cal}/items/${item.id}`, { all_day: true });
    expect(notDay.statusCode).toBe(422);
    expect(
      (await h.call(owner, 'PATCH', `/calendars/${cal}/items/${item.id}`, { status: 'cancelled' })).statusCode,
    ).toBe(422);
    expect(
      (await h.call(owner, 'PATCH', `/calendars/${cal}/items/${item.id}`, { created_by: owner.userId })).statusCode,
    ).toBe(422);
    await h.call(owner, 'DELETE', `/calendars/${cal}/items/${item.id}`);
    const again = await h.call(owner, 'DELETE', `/calendars/${cal}/items/${item.id}`);
    expect(again.json().status).toBe('cancelled');
    const restored = await h.call(owner, 'PATCH', `/calendars/${cal}/items/${item.id}`, { status: 'tentative' });
    expect(restored.json().status).toBe('tentative');
  });

  it('404s for an item of another calendar, even one the caller owns', async () => {
    const a = await calendar();
    const b = await calendar();
    const item = await addItem(a, { title: 'A', start_at: '2026-11-10T10:00:00Z', end_at: '2026-11-10T11:00:00Z' });
    const res = await h.call(owner, 'PATCH', `/calendars/${b}/items/${item.id}`, { title: 'B' });
    expect(res.statusCode).toBe(404);
    const other = h.user();
    const foreign = await h.call(other, 'DELETE', `/calendars/${a}/items/${item.id}`);
    expect(foreign.statusCode).toBe(404);
    expect((await h.call(owner, 'DELETE', `/calendars/${a}/items/${crypto.randomUUID()}`)).statusCode).toBe(404);
  });
});
