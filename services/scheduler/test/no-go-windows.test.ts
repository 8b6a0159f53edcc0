import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Harness, ok, startHarness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const settingsPath = '/service/settings/me';
const windowsPath = '/service/settings/no-go-windows';

describe('no-go windows', () => {
  it('adds weekly and once windows, generating ids, normalising instants to UTC, and deletes them', async () => {
    const user = h.tokens.user();
    const weekly = await ok(
      await call(h, user, 'POST', windowsPath, {
        kind: 'weekly',
        label: 'Lunch',
        days: ['mon', 'fri'],
        start: '12:00',
        end: '13:00',
      }),
      201,
    );
    expect(weekly).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      label: 'Lunch',
      kind: 'weekly',
      days: ['mon', 'fri'],
      start: '12:00',
      end: '13:00',
    });
    h.clock.advance(1000);
    const id = '0192f000-0000-7000-8000-00000000abcd';
    const once = await ok(
      await call(h, user, 'POST', windowsPath, {
        id,
        kind: 'once',
        start_at: '2026-12-24T14:00:00+01:00',
        end_at: '2026-12-24T18:00:00+01:00',
      }),
      201,
    );
    expect(once).toEqual({
      id,
      label: null,
      kind: 'once',
      start_at: '2026-12-24T13:00:00.000Z',
      end_at: '2026-12-24T17:00:00.000Z',
    });
    expect(await ok(await call(h, user, 'GET', windowsPath))).toEqual([weekly, once]);
    expect((await ok(await call(h, user, 'GET', settingsPath))).no_go_windows).toEqual([weekly, once]);

    // A used id is a conflict, also for someone else.
    const again = await call(h, h.tokens.user(), 'POST', windowsPath, {
      id,
      kind: 'weekly',
      days: ['sun'],
      start: '01:00',
      end: '02:00',
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('conflict');

    expect((await call(h, user, 'DELETE', `${windowsPath}/${weekly.id}`)).statusCode).toBe(204);
    expect((await call(h, user, 'DELETE', `${windowsPath}/${weekly.id}`)).statusCode).toBe(404);
    expect(await ok(await call(h, user, 'GET', windowsPath))).toEqual([once]);
  });

  it.each([
    [
      'a datetime without offset',
      { kind: 'once', start_at: '2026-12-01T10:00:00', end_at: '2026-12-01T11:00:00Z' },
      ['body', 'start_at'],
    ],
    [
      'end_at before start_at',
      { kind: 'once', start_at: '2026-12-01T10:00:00Z', end_at: '2026-12-01T09:00:00Z' },
      ['body', 'end_at'],
    ],
    [
      'end_at equal to start_at',
      { kind: 'once', start_at: '2026-12-01T10:00:00Z', end_at: '2026-12-01T10:00:00Z' },
      ['body', 'end_at'],
    ],
    [
      'a weekly window ending before it starts',
      { kind: 'weekly', days: ['mon'], start: '13:00', end: '12:00' },
      ['body', 'end'],
    ],
    ['a weekly window without days', { kind: 'weekly', days: [], start: '12:00', end: '13:00' }, ['body', 'days']],
    ['an unknown day', { kind: 'weekly', days: ['funday'], start: '12:00', end: '13:00' }, ['body', 'days', 0]],
    ['a bad wall-clock time', { kind: 'weekly', days: ['mon'], start: '25:00', end: '26:00' }, ['body', 'start']],
    [
      'an id that is not a UUID',
      { id: 'abc', kind: 'weekly', days: ['mon'], start: '12:00', end: '13:00' },
      ['body', 'id'],
    ],
    ['an unknown kind', { kind: 'monthly', start: '12:00', end: '13:00' }, ['body', 'kind']],
  ])('POST refuses %s with 422 naming the field', async (_name, body, loc) => {
    const res = await call(h, h.tokens.user(), 'POST', windowsPath, body);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors.map((e: { loc: unknown }) => e.loc)).toContainEqual(loc);
  });
});
