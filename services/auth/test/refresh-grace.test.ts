import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthHarness, bearer, register, startAuth } from './harness.js';

// Two tabs of the console (or two requests of one client) refreshing with the same refresh token at once
// (contract, "Web console"; docs/adr/011). The harness clock stands still unless advanced, so requests sent
// together are literally in the same millisecond.

const refresh = (h: AuthHarness, token: string) =>
  h.app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refresh_token: token } });
const cookieRefresh = (h: AuthHarness, token: string) =>
  h.app.inject({
    method: 'POST',
    url: '/api/v1/auth/refresh',
    headers: { cookie: `routinely_refresh=${token}`, 'sec-fetch-site': 'same-origin' },
  });
const me = (h: AuthHarness, token: string) => h.app.inject({ url: '/api/v1/auth/me', headers: bearer(token) });
const sessionOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()).sid as string;

describe('within REFRESH_REUSE_GRACE_S (default 10 s)', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth();
  });
  afterAll(() => h?.close());

  it('two refreshes of one token in the same millisecond both get a working session of the same family', async () => {
    const { refresh: token, access } = await register(h.app);
    const answers = await Promise.all([refresh(h, token), refresh(h, token)]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200]);
    const [a, b] = answers.map((answer) => answer.json());
    expect(a.refresh_token).not.toBe(b.refresh_token);
    for (const pair of [a, b]) {
      expect(sessionOf(pair.access_token)).toBe(sessionOf(access));
      expect((await me(h, pair.access_token)).statusCode).toBe(200);
    }
    // Each successor is a live token of the family: both rotate on.
    expect((await refresh(h, a.refresh_token)).statusCode).toBe(200);
    expect((await refresh(h, b.refresh_token)).statusCode).toBe(200);
  });

  it('five tabs at once by the refresh cookie: every one gets cookies that work', async () => {
    const { refresh: token } = await register(h.app);
    const answers = await Promise.all(Array.from({ length: 5 }, () => cookieRefresh(h, token)));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200]);
    for (const answer of answers) {
      const session = /routinely_session=([^;]+)/.exec(String(answer.headers['set-cookie']))?.[1] ?? '';
      expect((await me(h, session)).statusCode).toBe(200);
    }
  });

  it('a second refresh a few seconds later (the other tab) still works; one after the grace ends the family', async () => {
    const { refresh: token } = await register(h.app);
    const first = await refresh(h, token);
    expect(first.statusCode).toBe(200);
    h.clock.advance(h.config.REFRESH_REUSE_GRACE_S * 1000);
    const second = await refresh(h, token);
    expect(second.statusCode).toBe(200);
    // The grace runs from the rotation, not from the last reuse.
    h.clock.advance(1);
    const late = await refresh(h, token);
    expect(late.statusCode).toBe(401);
    expect(late.json().code).toBe('invalid_token');
    // Reuse detection ends the whole family: every successor and its access token.
    for (const answer of [first, second]) {
      expect((await refresh(h, answer.json().refresh_token)).statusCode).toBe(401);
      expect((await me(h, answer.json().access_token)).statusCode).toBe(401);
    }
  });

  it('a token rotated long ago is reuse even when presented by two requests at once', async () => {
    const { refresh: token } = await register(h.app);
    const rotated = await refresh(h, token);
    h.clock.advance((h.config.REFRESH_REUSE_GRACE_S + 1) * 1000);
    const answers = await Promise.all([refresh(h, token), refresh(h, token)]);
    expect(answers.map((a) => a.statusCode)).toEqual([401, 401]);
    expect((await me(h, rotated.json().access_token)).statusCode).toBe(401);
  });
});

describe('REFRESH_REUSE_GRACE_S=0 turns the grace off', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth({ env: { REFRESH_REUSE_GRACE_S: '0' } });
  });
  afterAll(() => h?.close());

  it('of two refreshes in the same millisecond one wins and the other is reuse: the family ends', async () => {
    const { refresh: token } = await register(h.app);
    const answers = await Promise.all([refresh(h, token), refresh(h, token)]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 401]);
    const winner = answers.find((a) => a.statusCode === 200)?.json();
    expect((await me(h, winner.access_token)).statusCode).toBe(401);
  });
});
