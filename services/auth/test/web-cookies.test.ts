import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthHarness, bearer, postLogin, register, STRONG_PASSWORD, startAuth } from './harness.js';

// The web console's sessions (contract, "Web console"): two HttpOnly cookies set by every sign-in, a refresh
// that reads and rotates the refresh cookie, and a logout that clears both.

const ORIGIN = 'http://localhost:8080';
/** What a browser sends with the console's `fetch('/api/v1/auth/refresh', { method: 'POST' })`. */
const SAME_ORIGIN = { origin: ORIGIN, 'sec-fetch-site': 'same-origin' };

/** Each Set-Cookie of an answer, by cookie name: its value and its attributes (lowercase names). */
function cookiesOf(res: LightMyRequestResponse): Map<string, { value: string; attributes: Record<string, string> }> {
  const header = res.headers['set-cookie'];
  const all = header === undefined ? [] : [header].flat();
  const cookies = new Map<string, { value: string; attributes: Record<string, string> }>();
  for (const line of all) {
    const [pair = '', ...rest] = line.split(';').map((part) => part.trim());
    const [name = '', value = ''] = pair.split(/=(.*)/s);
    const attributes = Object.fromEntries(
      rest.map((attribute) => {
        const [key = '', val = ''] = attribute.split(/=(.*)/s);
        return [key.toLowerCase(), val];
      }),
    );
    cookies.set(name, { value, attributes });
  }
  return cookies;
}

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth();
});
afterAll(() => h?.close());

const cookieRefresh = (refresh: string, headers: Record<string, string> = SAME_ORIGIN, payload?: unknown) =>
  h.app.inject({
    method: 'POST',
    url: '/api/v1/auth/refresh',
    headers: { cookie: `routinely_refresh=${refresh}`, ...headers },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
const me = (headers: Record<string, string>) => h.app.inject({ url: '/api/v1/auth/me', headers });

describe('signing in sets both cookies', () => {
  it('register and login: the session cookie on / (Lax), the refresh cookie on /api/v1/auth (Strict), both HttpOnly', async () => {
    const registered = await register(h.app);
    const login = await postLogin(h.app, { email: registered.email, password: STRONG_PASSWORD });
    for (const res of [registered.res, login]) {
      const body = res.json();
      const cookies = cookiesOf(res);
      expect(cookies.get('routinely_session')).toEqual({
        value: body.access_token,
        attributes: { 'max-age': String(h.config.ACCESS_TOKEN_TTL_SECONDS), path: '/', httponly: '', samesite: 'Lax' },
      });
      expect(cookies.get('routinely_refresh')).toEqual({
        value: body.refresh_token,
        attributes: {
          'max-age': String(body.refresh_expires_in),
          path: '/api/v1/auth',
          httponly: '',
          samesite: 'Strict',
        },
      });
    }
  });

  it('the refresh cookie lives as long as its family: a later rotation sets the time that is left', async () => {
    const { refresh } = await register(h.app);
    h.clock.advance(3_600_000);
    try {
      const res = await cookieRefresh(refresh);
      expect(res.statusCode).toBe(200);
      const left = h.config.REFRESH_TOKEN_TTL_SECONDS - 3600;
      expect(res.json().refresh_expires_in).toBe(left);
      expect(cookiesOf(res).get('routinely_refresh')?.attributes['max-age']).toBe(String(left));
    } finally {
      h.clock.advance(-3_600_000);
    }
  });
});

describe('POST /auth/refresh with the refresh cookie', () => {
  it.each([
    ['no body', undefined],
    ['{}', {}],
  ])('with %s rotates both cookies and answers no token', async (_label, payload) => {
    const { refresh, access, userId } = await register(h.app);
    const res = await cookieRefresh(refresh, SAME_ORIGIN, payload);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['expires_in', 'refresh_expires_in', 'user']);
    expect(body.user.id).toBe(userId);
    expect(res.body).not.toContain(refresh);
    const cookies = cookiesOf(res);
    const session = cookies.get('routinely_session')?.value ?? '';
    const rotated = cookies.get('routinely_refresh')?.value ?? '';
    expect(session).not.toBe(access);
    expect(rotated).not.toBe(refresh);
    expect(res.body).not.toContain(session);
    expect(res.body).not.toContain(rotated);
    expect(res.headers['cache-control']).toBe('no-store');
    // The new session cookie authenticates, and the rotated refresh cookie refreshes again.
    expect((await me({ cookie: `routinely_session=${session}` })).statusCode).toBe(200);
    expect((await cookieRefresh(rotated)).statusCode).toBe(200);
  });

  it('without the cookie (and without refresh_token) is 401 problem+json', async () => {
    for (const payload of [undefined, {}]) {
      const res = await h.app.inject({
        method: 'POST',
        url: '/api/v1/auth/refresh',
        headers: SAME_ORIGIN,
        ...(payload ? { payload } : {}),
      });
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ status: 401, code: 'not_authenticated' });
    }
  });

  it('a dead refresh cookie is 401 and is cleared', async () => {
    const res = await cookieRefresh('not-a-refresh-token');
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('invalid_token');
    const cookies = cookiesOf(res);
    expect(cookies.get('routinely_refresh')?.attributes['max-age']).toBe('0');
    expect(cookies.get('routinely_session')?.attributes['max-age']).toBe('0');
  });

  it('is a cookie-authenticated write: another origin or no origin at all is 403, a body that is not JSON 415', async () => {
    const { refresh } = await register(h.app);
    const evil = await cookieRefresh(refresh, { origin: 'https://evil.example' });
    expect(evil.statusCode).toBe(403);
    expect(evil.json().code).toBe('forbidden');
    expect((await cookieRefresh(refresh, { 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
    expect((await cookieRefresh(refresh, {})).statusCode).toBe(403);
    // A form or text body (which another site's page could send without a preflight) is not taken at all.
    const text = await cookieRefresh(refresh, { ...SAME_ORIGIN, 'content-type': 'text/plain' }, 'x');
    expect(text.statusCode).toBe(415);
    // None of those used the token: it still rotates once.
    expect((await cookieRefresh(refresh)).statusCode).toBe(200);
  });

  it('with a JSON refresh_token works as before: the tokens in the body (and both cookies set)', async () => {
    const { refresh } = await register(h.app);
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/refresh',
      headers: { cookie: 'routinely_refresh=some-other-browser-token' },
      payload: { refresh_token: refresh },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ token_type: 'bearer', access_token: expect.any(String) });
    expect(cookiesOf(res).get('routinely_refresh')?.value).toBe(body.refresh_token);
    expect(cookiesOf(res).get('routinely_session')?.value).toBe(body.access_token);
  });
});

describe('logout clears both cookies', () => {
  it('logout by the session cookie clears both and ends the refresh cookie', async () => {
    const { access, refresh } = await register(h.app);
    const out = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/logout',
      headers: { ...SAME_ORIGIN, cookie: `routinely_session=${access}; routinely_refresh=${refresh}` },
    });
    expect(out.statusCode).toBe(200);
    const cookies = cookiesOf(out);
    expect(cookies.get('routinely_session')).toMatchObject({ value: '', attributes: { 'max-age': '0', path: '/' } });
    expect(cookies.get('routinely_refresh')).toMatchObject({
      value: '',
      attributes: { 'max-age': '0', path: '/api/v1/auth', samesite: 'Strict' },
    });
    expect((await cookieRefresh(refresh)).statusCode).toBe(401);
  });

  it("logout ends another session named by the browser's refresh cookie, never another user's", async () => {
    const first = await register(h.app);
    const second = await postLogin(h.app, { email: first.email, password: STRONG_PASSWORD });
    const stranger = await register(h.app);
    const out = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/logout',
      headers: { ...bearer(first.access), cookie: `routinely_refresh=${second.json().refresh_token}` },
    });
    expect(out.statusCode).toBe(200);
    expect((await me(bearer(second.json().access_token))).statusCode).toBe(401);
    const third = await postLogin(h.app, { email: first.email, password: STRONG_PASSWORD });
    const foreign = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/logout',
      headers: { ...bearer(third.json().access_token), cookie: `routinely_refresh=${stranger.refresh}` },
    });
    expect(foreign.statusCode).toBe(200);
    expect((await me(bearer(stranger.access))).statusCode).toBe(200);
  });

  it('logout_all clears both cookies too', async () => {
    const { access } = await register(h.app);
    const out = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/logout',
      headers: bearer(access),
      payload: { logout_all: true },
    });
    expect(out.statusCode).toBe(200);
    expect(cookiesOf(out).get('routinely_session')?.attributes['max-age']).toBe('0');
    expect(cookiesOf(out).get('routinely_refresh')?.attributes['max-age']).toBe('0');
  });
});
