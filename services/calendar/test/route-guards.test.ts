import { type RouteGuardTable, runRouteGuards, type TestUser, tokenGuardTarget } from '@routinely/testkit';
import { afterAll, beforeAll, expect } from 'vitest';
import { type Harness, startHarness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const calendar = async (owner: TestUser) => ({ calendar_id: (await h.createCalendar(owner, { name: 'Family' })).id });
const item = async (owner: TestUser) => {
  const ids = await calendar(owner);
  const res = await h.call(owner, 'POST', `/calendars/${ids.calendar_id}/items`, {
    title: 'Dentist',
    start_at: '2026-11-22T09:00:00Z',
    end_at: '2026-11-22T10:00:00Z',
  });
  expect(res.statusCode, res.body).toBe(201);
  return { ...ids, item_id: res.json().id };
};
const sharing = async (owner: TestUser) => {
  const ids = await calendar(owner);
  const res = await h.share(owner, ids.calendar_id, { user_id: h.user(owner.tenantId).userId, permission: 'view' });
  expect(res.statusCode, res.body).toBe(201);
  return { ...ids, sharing_id: res.json().id };
};
const window = () => 'start_date=2026-11-01&end_date=2026-11-30';

// Every calendar route: a new route fails the coverage check until it is listed here. Calendar routes need
// a signed-in user but no permission code: access follows ownership and sharing (see permissions.test.ts).
const TABLE: RouteGuardTable<TestUser> = {
  'GET /calendars': { invalid: { query: 'page=0' } },
  'POST /calendars': { body: () => ({ name: 'Work' }), invalid: { body: { name: '' } } },
  'GET /calendars/:calendar_id': { fixture: calendar, invalid: { params: { calendar_id: 'nope' } } },
  'PATCH /calendars/:calendar_id': {
    fixture: calendar,
    body: () => ({ name: 'Renamed' }),
    invalid: { body: { colour: '#ffffff' } },
  },
  'DELETE /calendars/:calendar_id': { fixture: calendar, invalid: { params: { calendar_id: 'nope' } } },
  'GET /calendars/:calendar_id/items': {
    fixture: calendar,
    query: window,
    invalid: { query: 'start_date=2026-11-01' },
  },
  'POST /calendars/:calendar_id/items': {
    fixture: calendar,
    body: () => ({ title: 'Lunch', start_at: '2026-11-23T12:00:00Z', end_at: '2026-11-23T13:00:00Z' }),
    invalid: { body: { title: 'Lunch', start_at: 'noon', end_at: '2026-11-23T13:00:00Z' } },
  },
  'PATCH /calendars/:calendar_id/items/:item_id': {
    fixture: item,
    body: () => ({ title: 'Dentist (moved)' }),
    invalid: { body: { title: '' } },
  },
  'DELETE /calendars/:calendar_id/items/:item_id': { fixture: item, invalid: { params: { item_id: 'nope' } } },
  'POST /calendars/:calendar_id/share': {
    fixture: async (owner) => ({ ...(await calendar(owner)), grantee: h.user(owner.tenantId).userId }),
    body: (ids) => ({ user_id: ids.grantee, permission: 'view' }),
    invalid: { body: { permission: 'view' } },
  },
  'GET /calendars/:calendar_id/sharing': { fixture: calendar, invalid: { params: { calendar_id: 'nope' } } },
  'PATCH /calendars/:calendar_id/sharing/:sharing_id': {
    fixture: sharing,
    body: () => ({ permission: 'edit' }),
    invalid: { body: { permission: 'owner' } },
  },
  'DELETE /calendars/:calendar_id/sharing/:sharing_id': {
    fixture: sharing,
    invalid: { params: { sharing_id: 'nope' } },
  },
};

runRouteGuards('calendar', () => tokenGuardTarget(h, (user) => h.directory.add(user)), TABLE);
