import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthHarness, bearer, register, STRONG_PASSWORD, startAuth, uniqueEmail } from './harness.js';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth({ env: { PUBLIC_BASE_URL: 'https://app.example', ALLOWED_ORIGINS: 'https://web.example' } });
});
afterAll(() => h?.close());

describe('token responses and cookies', () => {
  it('are never cached, and the cookie is Secure when the public base URL is https', async () => {
    const email = uniqueEmail();
    const registered = await register(h.app, { email });
    expect(registered.res.headers['cache-control']).toBe('no-store');
    expect(String(registered.res.headers['set-cookie'])).toMatch(/routinely_session=[^;]+;.*; Secure/);
    const login = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email, password: STRONG_PASSWORD },
    });
    expect(login.headers['cache-control']).toBe('no-store');
    const refreshed = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/refresh',
      payload: { refresh_token: registered.refresh },
    });
    expect(refreshed.statusCode).toBe(200);
    expect(refreshed.headers['cache-control']).toBe('no-store');
    const form = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login/form',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `username=${encodeURIComponent(email)}&password=${encodeURIComponent(STRONG_PASSWORD)}`,
    });
    expect(form.statusCode).toBe(200);
    expect(form.headers['cache-control']).toBe('no-store');
  });

  it('an access token sent as a refresh token is 401', async () => {
    const { access } = await register(h.app);
    const res = await h.app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refresh_token: access } });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('invalid_token');
  });
});

describe('cookie-authenticated writes', () => {
  it('need an allowed origin; bearer requests do not', async () => {
    const { access } = await register(h.app);
    const cookie = `routinely_session=${access}`;
    const patch = (headers: Record<string, string>) =>
      h.app.inject({ method: 'PATCH', url: '/api/v1/auth/me', headers, payload: { display_name: 'Me' } });
    const evil = await patch({ cookie, origin: 'https://evil.example' });
    expect(evil.statusCode).toBe(403);
    expect(evil.json().code).toBe('forbidden');
    expect((await patch({ cookie })).statusCode).toBe(403);
    expect((await patch({ cookie, origin: 'https://app.example' })).statusCode).toBe(200);
    expect((await patch({ cookie, origin: 'https://web.example' })).statusCode).toBe(200);
    expect((await patch({ ...bearer(access), origin: 'https://evil.example' })).statusCode).toBe(200);
  });
});

describe('unstorable characters', () => {
  it('are a 422 naming the field on register, never a 500', async () => {
    for (const [field, value] of [
      ['name', 'a\u0000b'],
      ['password', `${STRONG_PASSWORD}\u0000`],
      ['name', '\ud800'],
      ['favourite', 'x\u0000'],
    ] as const) {
      const res = await h.app.inject({
        method: 'POST',
        url: '/api/v1/auth/register',
        payload: { email: uniqueEmail(), password: STRONG_PASSWORD, [field]: value },
      });
      expect(res.statusCode, field).toBe(422);
      expect(res.json().errors.map((e: { loc: unknown }) => e.loc)).toContainEqual(['body', field]);
    }
  });
});

describe('new passwords', () => {
  it('refuse common ones, guessable patterns, one repeated character and the email itself', async () => {
    const email = `ada.lovelace.${Date.now()}@example.test`;
    for (const password of [
      'password123',
      'qwertyuiop1',
      'iloveyou2024',
      'aaaaaaaaaaaa',
      '############',
      email,
      email.split('@')[0] as string,
    ]) {
      const res = await h.app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: { email, password } });
      expect(res.statusCode, password).toBe(422);
      expect(res.json().errors[0].loc).toEqual(['body', 'password']);
    }
    const ok = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/register',
      payload: { email, password: 'plum orbit lantern 42' },
    });
    expect(ok.statusCode).toBe(201);
    const change = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/set-local-password',
      headers: bearer(ok.json().access_token),
      payload: { new_password: email.toUpperCase(), current_password: 'plum orbit lantern 42' },
    });
    expect(change.statusCode).toBe(422);
    expect(change.json().errors[0].loc).toEqual(['body', 'new_password']);
  });
});
