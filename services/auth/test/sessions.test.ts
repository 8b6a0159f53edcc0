import { defined } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthHarness, bearer, postLogin, register, STRONG_PASSWORD, startAuth } from './harness.js';

/** The route table of the service, for the "401 without a token" sweep. */
const PROTECTED = [
  ['POST', '/auth/logout'],
  ['GET', '/auth/me'],
  ['PATCH', '/auth/me'],
  ['POST', '/auth/set-local-password'],
  ['POST', '/auth/local/setup-password'],
  ['POST', '/auth/mfa/setup'],
  ['DELETE', '/auth/mfa'],
] as const;

function sessionSuite(label: string, redis: boolean) {
  describe(`sessions (${label} revocation store)`, () => {
    let h: AuthHarness;
    beforeAll(async () => {
      h = await startAuth({ redis });
    });
    afterAll(() => h?.close());

    const me = (token: string) => h.app.inject({ url: '/api/v1/auth/me', headers: bearer(token) });
    const refresh = (token: string) =>
      h.app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refresh_token: token } });
    const logout = (token: string, payload?: object) =>
      h.app.inject({
        method: 'POST',
        url: '/api/v1/auth/logout',
        headers: bearer(token),
        ...(payload ? { payload } : {}),
      });
    const login = async (email: string) =>
      (await postLogin(h.app, { email, password: STRONG_PASSWORD })).json() as {
        access_token: string;
        refresh_token: string;
      };

    it('rotates refresh tokens; reusing a rotated one is 401 and revokes the whole family', async () => {
      const { refresh: first } = await register(h.app);
      const rotated = await refresh(first);
      expect(rotated.statusCode).toBe(200);
      const second = rotated.json();
      expect(second.refresh_token).not.toBe(first);
      expect((await me(second.access_token)).statusCode).toBe(200);

      // Past the reuse grace of a second tab (refresh-grace.test.ts), a reuse is reuse.
      h.clock.advance((h.config.REFRESH_REUSE_GRACE_S + 1) * 1000);
      const reuse = await refresh(first);
      expect(reuse.statusCode).toBe(401);
      expect(reuse.json().code).toBe('invalid_token');
      // The family is dead: the newest refresh token and its access token both fail.
      expect((await refresh(second.refresh_token)).statusCode).toBe(401);
      expect((await me(second.access_token)).statusCode).toBe(401);
    });

    it('refuses unknown and expired refresh tokens and validates the body', async () => {
      expect((await refresh('not-a-token')).statusCode).toBe(401);
      const invalid = await h.app.inject({
        method: 'POST',
        url: '/api/v1/auth/refresh',
        payload: { refresh_token: '' },
      });
      expect(invalid.statusCode).toBe(422);
      expect(invalid.json().errors[0].loc).toEqual(['body', 'refresh_token']);
      // `{}` asks for the refresh cookie (web-cookies.test.ts); without one it is 401.
      const none = await h.app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: {} });
      expect(none.statusCode).toBe(401);
      const { refresh: token } = await register(h.app);
      h.clock.advance((h.config.REFRESH_TOKEN_TTL_SECONDS + 1) * 1000);
      try {
        expect((await refresh(token)).statusCode).toBe(401);
      } finally {
        h.clock.advance(-(h.config.REFRESH_TOKEN_TTL_SECONDS + 1) * 1000);
      }
    });

    it('logout makes the same access token fail at once and clears the cookie', async () => {
      const { access, refresh: refreshToken } = await register(h.app);
      expect((await me(access)).statusCode).toBe(200);
      const out = await logout(access);
      expect(out.statusCode).toBe(200);
      expect(out.json()).toEqual({ ok: true });
      expect(String(out.headers['set-cookie'])).toMatch(/routinely_session=;.*Max-Age=0/);
      const after = await me(access);
      expect(after.statusCode).toBe(401);
      expect(after.headers['www-authenticate']).toBe('Bearer');
      expect((await refresh(refreshToken)).statusCode).toBe(401);
    });

    it('logout_all ends every session of the user, and only that user', async () => {
      const { email, access: a1 } = await register(h.app);
      const s2 = await login(email);
      const s3 = await login(email);
      const bystander = await register(h.app);
      const out = await logout(s2.access_token, { logout_all: true });
      expect(out.statusCode).toBe(200);
      for (const token of [a1, s2.access_token, s3.access_token]) expect((await me(token)).statusCode).toBe(401);
      expect((await refresh(s3.refresh_token)).statusCode).toBe(401);
      expect((await me(bystander.access)).statusCode).toBe(200);
    });

    it("logout with a refresh_token ends that family too; another user's token is 404 and stays alive", async () => {
      const { email, access } = await register(h.app);
      const other = await login(email);
      const stranger = await register(h.app);
      const foreign = await logout(access, { refresh_token: stranger.refresh });
      expect(foreign.statusCode).toBe(404);
      expect((await me(access)).statusCode).toBe(200);
      expect((await refresh(stranger.refresh)).statusCode).toBe(200);

      const invalid = await logout(access, { logout_all: 'yes' });
      expect(invalid.statusCode).toBe(422);

      const out = await logout(access, { refresh_token: other.refresh_token });
      expect(out.statusCode).toBe(200);
      expect((await me(other.access_token)).statusCode).toBe(401);
    });

    it('remembers recent logouts across a restart (store rebuilt from the database)', async () => {
      const { access } = await register(h.app);
      await logout(access);
      const restarted = await h.restart();
      const res = await restarted.app.inject({ url: '/api/v1/auth/me', headers: bearer(access) });
      expect(res.statusCode).toBe(401);
    });

    it('rejects alg none, tampered, expired and foreign-issuer tokens', async () => {
      const { access } = await register(h.app);
      const [header, payload, signature] = access.split('.');
      const claims = JSON.parse(Buffer.from(defined(payload), 'base64url').toString());
      const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
      const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, roles: ['super_admin'] })).toString('base64url')}.${signature}`;
      for (const bad of [none, tampered, 'garbage', `${header}.${payload}.`]) {
        expect((await me(bad)).statusCode).toBe(401);
      }
      h.clock.advance((h.config.ACCESS_TOKEN_TTL_SECONDS + 5) * 1000);
      try {
        const expired = await me(access);
        expect(expired.statusCode).toBe(401);
        expect(expired.json().detail).toBe('Token expired');
      } finally {
        h.clock.advance(-(h.config.ACCESS_TOKEN_TTL_SECONDS + 5) * 1000);
      }
      expect((await me(access)).statusCode).toBe(200);
    });

    it('answers 401 with WWW-Authenticate on every protected route without a token, on both mounts', async () => {
      for (const mount of ['/api/v1', '/v1']) {
        for (const [method, path] of PROTECTED) {
          const res = await h.app.inject({ method, url: `${mount}${path}`, payload: {} });
          expect(res.statusCode, `${method} ${mount}${path}`).toBe(401);
          expect(res.headers['www-authenticate']).toBe('Bearer');
        }
      }
    });
  });
}

sessionSuite('memory', false);
sessionSuite('Redis', true);
