import { InternalAuth } from '@routinely/grpc';
import { AppError } from '@routinely/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthUserDirectory } from '../src/adapters/auth-user-directory.js';
import { errorLocs, type Harness, startHarness, TEST_INTERNAL_SECRET } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

describe('validation on every route', () => {
  it('answers 422 naming the path parameter that is not a uuid', async () => {
    const owner = h.user();
    const cal = (await h.createCalendar(owner, { name: 'V' })).id;
    const id = crypto.randomUUID();
    const cases: ['GET' | 'POST' | 'PATCH' | 'DELETE', string, unknown, string][] = [
      ['GET', '/calendars/x', undefined, 'params.calendar_id'],
      ['PATCH', '/calendars/x', { name: 'n' }, 'params.calendar_id'],
      ['DELETE', '/calendars/x', undefined, 'params.calendar_id'],
      ['GET', '/calendars/x/items?start_date=2026-11-01&end_date=2026-11-02', undefined, 'params.calendar_id'],
      [
        'POST',
        '/calendars/x/items',
        { title: 't', start_at: '2026-11-01T10:00:00Z', end_at: '2026-11-01T11:00:00Z' },
        'params.calendar_id',
      ],
      ['PATCH', `/calendars/${cal}/items/x`, { title: 't' }, 'params.item_id'],
      ['DELETE', `/calendars/${cal}/items/x`, undefined, 'params.item_id'],
      ['POST', '/calendars/x/share', { user_id: id, permission: 'view' }, 'params.calendar_id'],
      ['GET', '/calendars/x/sharing', undefined, 'params.calendar_id'],
      ['PATCH', `/calendars/${cal}/sharing/x`, { permission: 'view' }, 'params.sharing_id'],
      ['DELETE', `/calendars/${cal}/sharing/x`, undefined, 'params.sharing_id'],
    ];
    for (const [method, url, payload, loc] of cases) {
      const res = await h.call(owner, method, url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(422);
      expect(res.json()).toMatchObject({ code: 'validation_failed', status: 422 });
      expect(errorLocs(res)).toContain(loc);
    }
  });

  it('answers 422 for bodies that are malformed JSON or miss required fields', async () => {
    const owner = h.user();
    const cal = (await h.createCalendar(owner, { name: 'V' })).id;
    const malformed = await h.app.inject({
      method: 'POST',
      url: '/api/v1/calendars',
      headers: { ...(await h.tokens.auth(owner)), 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(malformed.statusCode).toBe(422);
    const noTimes = await h.call(owner, 'POST', `/calendars/${cal}/items`, { title: 'x' });
    expect(errorLocs(noTimes)).toEqual(['body.start_at', 'body.end_at']);
    const noLevel = await h.call(owner, 'PATCH', `/calendars/${cal}/sharing/${crypto.randomUUID()}`, {});
    expect(noLevel.statusCode).toBe(422);
  });
});

describe('the auth-service user directory adapter', () => {
  it('turns an unreachable auth service into 503 service_unavailable, not a user answer', async () => {
    const directory = new AuthUserDirectory('127.0.0.1:1', new InternalAuth('x'.repeat(40), 'calendar'), 500);
    try {
      const error = await directory.findByEmail(crypto.randomUUID(), 'a@b.test').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).status).toBe(503);
    } finally {
      directory.close();
    }
  });

  it('finds users of the tenant only, by id and by email', async () => {
    const alice = h.user();
    const directory = new AuthUserDirectory(h.directory.address, new InternalAuth(TEST_INTERNAL_SECRET, 'calendar'));
    try {
      expect(await directory.findById(alice.tenantId, alice.userId)).toMatchObject({
        id: alice.userId,
        email: alice.email,
      });
      expect(await directory.findByEmail(alice.tenantId, alice.email)).toMatchObject({ id: alice.userId });
      expect(await directory.findById(crypto.randomUUID(), alice.userId)).toBeNull();
    } finally {
      directory.close();
    }
  });

  it('turns an answer it cannot read into 503, not a user: a found user without an id is no user to share with', async () => {
    const alice = h.user();
    // The auth service answering `found` with a user whose id is empty (proto3's default for an absent field).
    h.directory.add({ ...alice, userId: '', email: `blank-${alice.email}` });
    const directory = new AuthUserDirectory(h.directory.address, new InternalAuth(TEST_INTERNAL_SECRET, 'calendar'));
    try {
      const error = await directory.findByEmail(alice.tenantId, `blank-${alice.email}`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).status).toBe(503);
    } finally {
      directory.close();
    }
  });
});
