import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

/**
 * The permission table of area B, run against every endpoint: 404 where the caller cannot see the
 * calendar, 403 where they can see it but not act, 401 without a token. A denied write must change nothing.
 */
type Role = 'owner' | 'admin' | 'edit' | 'view' | 'public' | 'stranger' | 'otherTenant' | 'anonymous';
const ROLES: Role[] = ['owner', 'admin', 'edit', 'view', 'public', 'stranger', 'otherTenant', 'anonymous'];

interface Fixture {
  calendarId: string;
  itemId: string;
  /** A share of a bystander user, the target of sharing updates and revokes. */
  targetSharingId: string;
}

interface Endpoint {
  name: string;
  request(f: Fixture): { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: unknown };
  expect: Record<Role, number>;
  /** Extra checks of a successful answer. */
  // biome-ignore lint/suspicious/noExplicitAny: each endpoint's answer has its own shape; the checks assert on it
  check?(body: any, role: Role, f: Fixture): void | Promise<void>;
}

const see = {
  owner: 200,
  admin: 200,
  edit: 200,
  view: 200,
  public: 200,
  stranger: 404,
  otherTenant: 404,
  anonymous: 401,
};
const edit = {
  owner: 200,
  admin: 200,
  edit: 200,
  view: 403,
  public: 403,
  stranger: 404,
  otherTenant: 404,
  anonymous: 401,
};
const manage = {
  owner: 200,
  admin: 200,
  edit: 403,
  view: 403,
  public: 403,
  stranger: 404,
  otherTenant: 404,
  anonymous: 401,
};
const anyUser = {
  owner: 200,
  admin: 200,
  edit: 200,
  view: 200,
  public: 200,
  stranger: 200,
  otherTenant: 200,
  anonymous: 401,
};
const withSuccess = (table: Record<Role, number>, status: number) =>
  Object.fromEntries(Object.entries(table).map(([r, s]) => [r, s === 200 ? status : s])) as Record<Role, number>;

const LEVEL: Partial<Record<Role, string>> = {
  owner: 'owner',
  admin: 'admin',
  edit: 'edit',
  view: 'view',
  public: 'view',
};

const ENDPOINTS: Endpoint[] = [
  {
    name: 'GET /calendars',
    request: () => ({ method: 'GET', url: '/calendars?page_size=100' }),
    expect: anyUser,
    check(body, role, f) {
      const mine = body.items.find((c: { id: string }) => c.id === f.calendarId);
      if (LEVEL[role]) expect(mine?.permission).toBe(LEVEL[role]);
      else expect(mine).toBeUndefined();
    },
  },
  {
    name: 'POST /calendars',
    request: () => ({ method: 'POST', url: '/calendars', payload: { name: 'Mine' } }),
    expect: withSuccess(anyUser, 201),
    check: (body) => expect(body.permission).toBe('owner'),
  },
  {
    name: 'GET /calendars/:id',
    request: (f) => ({ method: 'GET', url: `/calendars/${f.calendarId}` }),
    expect: see,
    check: (body, role) => expect(body.permission).toBe(LEVEL[role]),
  },
  {
    name: 'PATCH /calendars/:id',
    request: (f) => ({ method: 'PATCH', url: `/calendars/${f.calendarId}`, payload: { name: 'Renamed' } }),
    expect: edit,
    check: (body) => expect(body.name).toBe('Renamed'),
  },
  {
    name: 'DELETE /calendars/:id',
    request: (f) => ({ method: 'DELETE', url: `/calendars/${f.calendarId}` }),
    expect: withSuccess(manage, 204),
    async check(_body, _role, f) {
      const after = await h.call(users.owner, 'GET', `/calendars/${f.calendarId}`);
      expect(after.json().is_active).toBe(false);
    },
  },
  {
    name: 'GET /calendars/:id/items',
    request: (f) => ({
      method: 'GET',
      url: `/calendars/${f.calendarId}/items?start_date=2026-11-01&end_date=2026-11-30`,
    }),
    expect: see,
    check: (body, _role, f) => expect(body.items.map((i: { id: string }) => i.id)).toEqual([f.itemId]),
  },
  {
    name: 'POST /calendars/:id/items',
    request: (f) => ({
      method: 'POST',
      url: `/calendars/${f.calendarId}/items`,
      payload: { title: 'New', start_at: '2026-11-22T10:00:00Z', end_at: '2026-11-22T11:00:00Z' },
    }),
    expect: withSuccess(edit, 201),
    check: (body) => expect(body.title).toBe('New'),
  },
  {
    name: 'PATCH /calendars/:id/items/:item_id',
    request: (f) => ({
      method: 'PATCH',
      url: `/calendars/${f.calendarId}/items/${f.itemId}`,
      payload: { title: 'Moved' },
    }),
    expect: edit,
    check: (body) => expect(body.title).toBe('Moved'),
  },
  {
    name: 'DELETE /calendars/:id/items/:item_id',
    request: (f) => ({ method: 'DELETE', url: `/calendars/${f.calendarId}/items/${f.itemId}` }),
    expect: edit,
    check: (body) => expect(body.status).toBe('cancelled'),
  },
  {
    name: 'POST /calendars/:id/share',
    request: (f) => ({
      method: 'POST',
      url: `/calendars/${f.calendarId}/share`,
      payload: { email: NEWCOMER_EMAIL, permission: 'view' },
    }),
    expect: withSuccess(manage, 201),
    check: (body) => expect(body.permission).toBe('view'),
  },
  {
    name: 'GET /calendars/:id/sharing',
    request: (f) => ({ method: 'GET', url: `/calendars/${f.calendarId}/sharing` }),
    expect: see,
    check(body, role) {
      const expected = { owner: 4, admin: 4, edit: 1, view: 1, public: 0 }[role as 'owner'];
      expect(body).toHaveLength(expected);
      if (expected === 1) expect(body[0].user_id).toBe(users[role].userId);
    },
  },
  {
    name: 'PATCH /calendars/:id/sharing/:sharing_id',
    request: (f) => ({
      method: 'PATCH',
      url: `/calendars/${f.calendarId}/sharing/${f.targetSharingId}`,
      payload: { permission: 'edit' },
    }),
    expect: manage,
    check: (body) => expect(body.permission).toBe('edit'),
  },
  {
    name: 'DELETE /calendars/:id/sharing/:sharing_id',
    request: (f) => ({ method: 'DELETE', url: `/calendars/${f.calendarId}/sharing/${f.targetSharingId}` }),
    expect: withSuccess(manage, 204),
    async check(_body, _role, f) {
      const after = (await h.call(users.owner, 'GET', `/calendars/${f.calendarId}/sharing`)).json();
      expect(after.map((s: { id: string }) => s.id)).not.toContain(f.targetSharingId);
      expect(after).toHaveLength(3);
    },
  },
];

const NEWCOMER_EMAIL = 'newcomer@family.test';
let h: Harness;
let users: Record<Role, TestUser>;
let target: TestUser;

beforeAll(async () => {
  h = await startHarness();
  const owner = h.user();
  const tenantId = owner.tenantId;
  const stranger = h.user(tenantId);
  users = {
    owner,
    admin: h.user(tenantId),
    edit: h.user(tenantId),
    view: h.user(tenantId),
    public: stranger,
    stranger,
    otherTenant: h.user(),
    anonymous: owner,
  };
  target = h.user(tenantId);
  h.directory.add(h.tokens.user({ tenantId, email: NEWCOMER_EMAIL }));
});
afterAll(() => h?.close());

async function makeFixture(visibility: 'private' | 'public'): Promise<Fixture> {
  const owner = users.owner;
  const calendarId = (await h.createCalendar(owner, { name: 'Family', visibility })).id;
  for (const level of ['admin', 'edit', 'view'] as const) {
    const share = await h.share(owner, calendarId, { user_id: users[level].userId, permission: level });
    expect(share.statusCode).toBe(201);
  }
  const targetShare = await h.share(owner, calendarId, { user_id: target.userId, permission: 'view' });
  const item = await h.call(owner, 'POST', `/calendars/${calendarId}/items`, {
    type: 'meeting',
    title: 'Dinner',
    start_at: '2026-11-21T18:00:00Z',
    end_at: '2026-11-21T19:00:00Z',
  });
  expect(item.statusCode).toBe(201);
  return { calendarId, itemId: item.json().id, targetSharingId: targetShare.json().id };
}

/** What the owner sees of the calendar: a denied request must leave all of it as it was. */
async function ownerView(f: Fixture) {
  const [cal, items, sharing] = await Promise.all([
    h.call(users.owner, 'GET', `/calendars/${f.calendarId}`),
    h.call(
      users.owner,
      'GET',
      `/calendars/${f.calendarId}/items?start_date=2026-11-01&end_date=2026-11-30&include_cancelled=true`,
    ),
    h.call(users.owner, 'GET', `/calendars/${f.calendarId}/sharing`),
  ]);
  return { calendar: cal.json(), items: items.json(), sharing: sharing.json() };
}

describe('calendar permission table', () => {
  const cases = ENDPOINTS.flatMap((endpoint) => ROLES.map((role) => ({ endpoint, role })));
  it.each(cases.map((c) => [c.endpoint.name, c.role, c.endpoint.expect[c.role], c] as const))(
    '%s as %s -> %i',
    async (_name, role, status, { endpoint }) => {
      const fixture = await makeFixture(role === 'public' || role === 'otherTenant' ? 'public' : 'private');
      const before = await ownerView(fixture);
      const { method, url, payload } = endpoint.request(fixture);
      const response = await h.call(role === 'anonymous' ? null : users[role], method, url, payload);
      expect(response.statusCode, response.body).toBe(status);
      if (status >= 400) {
        expect(response.headers['content-type']).toContain('application/problem+json');
        expect(response.json().code).toBe({ 401: 'not_authenticated', 403: 'forbidden', 404: 'not_found' }[status]);
        expect(await ownerView(fixture)).toEqual(before);
      } else if (endpoint.check) {
        await endpoint.check(status === 204 ? null : response.json(), role, fixture);
      }
    },
  );
});
