import { column, row, Sql } from '@routinely/db';
import { authEvents, JetStreamTransport, makeEvent } from '@routinely/events';
import { quietLogger, requireEnv, uniqueName } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { call, type Harness, ok, startHarness } from './harness.js';

let h: Harness;
let transport: JetStreamTransport;
beforeAll(async () => {
  transport = await JetStreamTransport.connect(requireEnv('NATS_URL'), quietLogger(), uniqueName('scheduler'));
  h = await startHarness({}, { transport });
});
afterAll(async () => {
  await h?.close();
  await transport?.close();
});

const settingsPath = '/service/settings/me';
const hoursPath = '/service/settings/working-hours';

describe('settings', () => {
  it('creates the row lazily with the contract defaults (UTC without a profile timezone)', async () => {
    const user = h.tokens.user();
    const body = await ok(await call(h, user, 'GET', settingsPath));
    const weekday = [{ start: '09:00', end: '17:00' }];
    expect(body).toMatchObject({
      user_id: user.userId,
      timezone: 'UTC',
      llm_provider_default: 'builtin',
      llm_provider_effective: 'builtin',
      working_hours: { mon: weekday, tue: weekday, wed: weekday, thu: weekday, fri: weekday, sat: [], sun: [] },
      no_go_windows: [],
      reminder_offset_min: 10,
    });
    expect(body.created_at).toMatch(/Z$/);
    expect(body.ignored).toBeUndefined();
  });

  it("takes the timezone of the user's profile from auth's registered event (through JetStream)", async () => {
    const user = h.tokens.user();
    const profile = {
      id: user.userId,
      tenant_id: user.tenantId,
      email: 'kolkata@example.test',
      name: null,
      timezone: 'Asia/Kolkata',
      is_active: true,
    };
    await transport.publish(
      makeEvent(
        authEvents.userRegistered,
        { tenantId: user.tenantId, userId: user.userId, at: new Date() },
        {
          user: profile,
        },
      ),
    );
    await vi.waitFor(
      async () => {
        const known = await Sql.of(h.orm).rows(
          row({ timezone: column.text.nullable() }),
          'select timezone from known_users where user_id = ?',
          [user.userId],
        );
        expect(known).toEqual([{ timezone: 'Asia/Kolkata' }]);
      },
      { timeout: 10_000 },
    );
    expect((await ok(await call(h, user, 'GET', settingsPath))).timezone).toBe('Asia/Kolkata');
  });

  it('PATCH changes only the given fields and canonicalises the zone', async () => {
    const user = h.tokens.user();
    const body = await ok(
      await call(h, user, 'PATCH', settingsPath, { timezone: 'europe/berlin', reminder_offset_min: 30 }),
    );
    expect(body).toMatchObject({ timezone: 'Europe/Berlin', reminder_offset_min: 30, llm_provider_default: 'builtin' });
    const next = await ok(await call(h, user, 'PATCH', settingsPath, { llm_provider_default: 'anthropic' }));
    expect(next).toMatchObject({
      timezone: 'Europe/Berlin',
      llm_provider_default: 'anthropic',
      llm_provider_effective: 'anthropic',
    });
    // The new zone is published with the change (routines' dates follow it); a PATCH without a zone says nothing.
    const published = await Sql.of(h.orm).rows(
      row({ payload: column.json(z.object({ user_id: z.string(), data: z.object({ timezone: z.string() }) })) }),
      "select payload from outbox where subject = 'scheduler.settings.timezone_changed'",
    );
    expect(
      published.filter((row) => row.payload.user_id === user.userId).map((row) => row.payload.data.timezone),
    ).toEqual(['Europe/Berlin']);
  });

  it.each([
    ['an unknown zone', { timezone: 'Mars/Olympus_Mons' }, ['body', 'timezone']],
    ['an offset instead of a zone', { timezone: '+01:00' }, ['body', 'timezone']],
    ['an unknown provider', { llm_provider_default: 'gemini' }, ['body', 'llm_provider_default']],
    ['a negative reminder offset', { reminder_offset_min: -1 }, ['body', 'reminder_offset_min']],
    ['an unknown field', { colour: 'red' }, ['body', 'colour']],
    [
      'bad working hours',
      { working_hours: { mon: [{ start: '9:00', end: '17:00' }] } },
      ['body', 'working_hours', 'mon', 0, 'start'],
    ],
  ])('PATCH refuses %s with 422 naming the field', async (_name, body, loc) => {
    const res = await call(h, h.tokens.user(), 'PATCH', settingsPath, body);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors.map((e: { loc: unknown }) => e.loc)).toContainEqual(loc);
  });

  it('PATCH replaces working hours with the same rules as PUT', async () => {
    const user = h.tokens.user();
    const body = await ok(
      await call(h, user, 'PATCH', settingsPath, { working_hours: { sun: [{ start: '10:00', end: '12:00' }] } }),
    );
    expect(body.working_hours).toEqual({
      mon: [],
      tue: [],
      wed: [],
      thu: [],
      fri: [],
      sat: [],
      sun: [{ start: '10:00', end: '12:00' }],
    });
    expect(await ok(await call(h, user, 'GET', hoursPath))).toEqual(body.working_hours);
  });

  it('a known provider without a key may be saved', async () => {
    const body = await ok(await call(h, h.tokens.user(), 'PATCH', settingsPath, { llm_provider_default: 'openai' }));
    expect(body.llm_provider_default).toBe('openai');
  });
});

describe('tenant provider lock', () => {
  it('ignores llm_provider_default while locked, lists it in ignored, and reports the effective provider', async () => {
    const admin = h.tokens.user({ roles: ['admin'] });
    const user = h.tokens.user({ tenantId: admin.tenantId });
    const initial = await ok(await call(h, admin, 'GET', '/service/admin/tenant/settings'));
    expect(initial).toEqual({
      tenant_id: admin.tenantId,
      llm_provider_tenant_default: 'builtin',
      llm_provider_locked: false,
      updated_at: null,
      updated_by: null,
    });
    await ok(await call(h, user, 'PATCH', settingsPath, { llm_provider_default: 'openai' }));
    const locked = await ok(
      await call(h, admin, 'PATCH', '/service/admin/tenant/settings', {
        llm_provider_tenant_default: 'anthropic',
        llm_provider_locked: true,
      }),
    );
    expect(locked).toMatchObject({
      llm_provider_tenant_default: 'anthropic',
      llm_provider_locked: true,
      updated_by: admin.userId,
    });
    expect(locked.updated_at).toMatch(/Z$/);

    const patched = await ok(
      await call(h, user, 'PATCH', settingsPath, { llm_provider_default: 'builtin', reminder_offset_min: 5 }),
    );
    expect(patched).toMatchObject({
      llm_provider_default: 'openai',
      llm_provider_effective: 'anthropic',
      reminder_offset_min: 5,
      ignored: ['llm_provider_default'],
    });
    // Another tenant's policy is untouched.
    expect((await ok(await call(h, h.tokens.user(), 'GET', settingsPath))).llm_provider_effective).toBe('builtin');

    await ok(await call(h, admin, 'PATCH', '/service/admin/tenant/settings', { llm_provider_locked: false }));
    const unlocked = await ok(await call(h, user, 'PATCH', settingsPath, { llm_provider_default: 'builtin' }));
    expect(unlocked).toMatchObject({ llm_provider_default: 'builtin', llm_provider_effective: 'builtin' });
    expect(unlocked.ignored).toBeUndefined();
  });
});

describe('working hours', () => {
  it('PUT replaces them: a missing day is [], 24:00 ends a day, intervals come back sorted', async () => {
    const user = h.tokens.user();
    const hours = {
      mon: [
        { start: '13:00', end: '17:00' },
        { start: '08:00', end: '12:00' },
      ],
      sat: [{ start: '20:00', end: '24:00' }],
    };
    const body = await ok(await call(h, user, 'PUT', hoursPath, hours));
    expect(body).toEqual({
      mon: [
        { start: '08:00', end: '12:00' },
        { start: '13:00', end: '17:00' },
      ],
      tue: [],
      wed: [],
      thu: [],
      fri: [],
      sat: [{ start: '20:00', end: '24:00' }],
      sun: [],
    });
    expect(await ok(await call(h, user, 'GET', hoursPath))).toEqual(body);
    expect((await ok(await call(h, user, 'GET', settingsPath))).working_hours).toEqual(body);
  });

  const seven = Array.from({ length: 7 }, (_, i) => ({ start: `0${i}:00`, end: `0${i}:30` }));
  it.each([
    ['end before start', { mon: [{ start: '12:00', end: '08:00' }] }, ['body', 'mon', 0, 'end']],
    ['start equal to end', { mon: [{ start: '08:00', end: '08:00' }] }, ['body', 'mon', 0, 'end']],
    ['24:00 as a start', { mon: [{ start: '24:00', end: '24:00' }] }, ['body', 'mon', 0, 'start']],
    ['24:30', { mon: [{ start: '08:00', end: '24:30' }] }, ['body', 'mon', 0, 'end']],
    ['a time without HH:MM', { mon: [{ start: '8:00', end: '09:00' }] }, ['body', 'mon', 0, 'start']],
    [
      'overlapping intervals',
      {
        tue: [
          { start: '09:00', end: '12:00' },
          { start: '11:00', end: '13:00' },
        ],
      },
      ['body', 'tue', 1, 'start'],
    ],
    ['seven intervals in a day', { wed: seven }, ['body', 'wed']],
    ['an unknown day', { monday: [] }, ['body', 'monday']],
  ])('PUT refuses %s with 422 naming the field', async (_name, body, loc) => {
    const res = await call(h, h.tokens.user(), 'PUT', hoursPath, body);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors.map((e: { loc: unknown }) => e.loc)).toContainEqual(loc);
  });

  it('accepts six intervals a day and touching intervals', async () => {
    const six = Array.from({ length: 6 }, (_, i) => ({ start: `0${i}:00`, end: `0${i + 1}:00` }));
    expect((await ok(await call(h, h.tokens.user(), 'PUT', hoursPath, { thu: six }))).thu).toHaveLength(6);
  });
});
