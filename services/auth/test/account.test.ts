import { defined } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthHarness,
  bearer,
  disableAccount,
  makeSsoOnly,
  postLogin,
  register,
  STRONG_PASSWORD,
  startAuth,
} from './harness.js';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth();
});
afterAll(() => h?.close());

const LOCAL_ONLY = {
  sso_available: false,
  sso_configured: false,
  circuit_breaker: { state: 'closed', failures: 0 },
  auth_methods: ['local'],
  active_auth_method: 'local',
};

describe('GET/PATCH /auth/me', () => {
  it('returns the profile plus the access-token claims', async () => {
    const { access, userId, email } = await register(h.app, { first_name: 'Grace' });
    const res = await h.app.inject({ url: '/api/v1/auth/me', headers: bearer(access) });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      id: userId,
      sub: userId,
      email,
      first_name: 'Grace',
      iss: 'routinely',
      aud: 'routinely-api',
      typ: 'access',
    });
    expect(body.exp - body.iat).toBe(900);
    expect(typeof body.jti).toBe('string');
    expect(typeof body.sid).toBe('string');
  });

  it('updates the profile and the next read shows it at once', async () => {
    const { access } = await register(h.app);
    await h.app.inject({ url: '/api/v1/auth/me', headers: bearer(access) }); // warm the cache
    const patch = await h.app.inject({
      method: 'PATCH',
      url: '/api/v1/auth/me',
      headers: bearer(access),
      payload: {
        display_name: 'Hopper',
        timezone: 'America/New_York',
        locale: 'en-US',
        avatar_url: 'https://img.example/a.png',
      },
    });
    expect(patch.statusCode).toBe(200);
    expect(patch.json()).toMatchObject({ display_name: 'Hopper', timezone: 'America/New_York', locale: 'en-US' });
    const read = await h.app.inject({ url: '/v1/auth/me', headers: bearer(access) });
    expect(read.json()).toMatchObject({ display_name: 'Hopper', avatar_url: 'https://img.example/a.png' });
    const cleared = await h.app.inject({
      method: 'PATCH',
      url: '/api/v1/auth/me',
      headers: bearer(access),
      payload: { display_name: null },
    });
    expect(cleared.json().display_name).toBeNull();
    expect(cleared.json().timezone).toBe('America/New_York');
  });

  it('refuses invalid fields and unknown ones with 422', async () => {
    const { access } = await register(h.app);
    for (const payload of [
      { timezone: 'Mars/Olympus' },
      { avatar_url: 'javascript:alert(1)' },
      { email: 'x@y.test' },
      { locale: '!!' },
    ]) {
      const res = await h.app.inject({ method: 'PATCH', url: '/api/v1/auth/me', headers: bearer(access), payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(422);
      expect(res.json().errors[0].loc[0]).toBe('body');
    }
  });

  it('a token whose account was disabled gets 403 account_disabled', async () => {
    const { access, userId } = await register(h.app);
    await disableAccount(h.orm, userId);
    const patch = await h.app.inject({
      method: 'PATCH',
      url: '/api/v1/auth/me',
      headers: bearer(access),
      payload: { locale: 'de' },
    });
    expect(patch.statusCode).toBe(403);
    expect(patch.json().code).toBe('account_disabled');
  });
});

describe('GET /auth/status and /auth/health', () => {
  it('report local-only authentication, status with the caller when a token is given', async () => {
    const health = await h.app.inject({ url: '/api/v1/auth/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual(LOCAL_ONLY);
    const anonymous = await h.app.inject({ url: '/api/v1/auth/status' });
    expect(anonymous.json()).toEqual({ ...LOCAL_ONLY, authenticated: false, user_id: null });
    const { access, userId } = await register(h.app);
    const signedIn = await h.app.inject({ url: '/v1/auth/status', headers: bearer(access) });
    expect(signedIn.json()).toEqual({ ...LOCAL_ONLY, authenticated: true, user_id: userId });
    const badToken = await h.app.inject({ url: '/api/v1/auth/status', headers: bearer('garbage') });
    expect(badToken.statusCode).toBe(401);
  });
});

describe('local passwords', () => {
  const loginStatus = async (email: string, password: string) =>
    (await postLogin(h.app, { email, password }, '10.50.0.1')).statusCode;

  /** POST to a password route as the holder of `access`. */
  const postAs = (access: string, url: string, payload: object) =>
    h.app.inject({ method: 'POST', url: `/api/v1/auth/${url}`, headers: bearer(access), payload });

  it('set-local-password needs the right current password and ends the other sessions', async () => {
    const { access, email } = await register(h.app);
    const otherSession = (await postLogin(h.app, { email, password: STRONG_PASSWORD })).json();
    const change = (payload: object) => postAs(access, 'set-local-password', payload);
    const missing = await change({ new_password: 'a brand new secret' });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors[0].loc).toEqual(['body', 'current_password']);
    const wrong = await change({ new_password: 'a brand new secret', current_password: 'not it at all' });
    expect(wrong.statusCode).toBe(401);
    const weak = await change({ new_password: 'password', current_password: STRONG_PASSWORD });
    expect(weak.statusCode).toBe(422);
    expect(weak.json().errors[0].loc).toEqual(['body', 'new_password']);
    const ok = await change({ new_password: 'a brand new secret', current_password: STRONG_PASSWORD });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ ok: true });
    expect(await loginStatus(email, STRONG_PASSWORD)).toBe(401);
    expect(await loginStatus(email, 'a brand new secret')).toBe(200);
    expect((await h.app.inject({ url: '/api/v1/auth/me', headers: bearer(access) })).statusCode).toBe(200);
    expect(
      (await h.app.inject({ url: '/api/v1/auth/me', headers: bearer(otherSession.access_token) })).statusCode,
    ).toBe(401);
  });

  it('local/setup-password sets a first password only (409 when one exists)', async () => {
    const { access, email, userId } = await register(h.app);
    const setup = (password: string) => postAs(access, 'local/setup-password', { password });
    const exists = await setup('another good secret');
    expect(exists.statusCode).toBe(409);
    expect(exists.json().code).toBe('password_already_set');
    // An SSO-style account: no local password.
    await makeSsoOnly(h.orm, userId);
    expect(await loginStatus(email, STRONG_PASSWORD)).toBe(401);
    const weak = await setup('abc');
    expect(weak.statusCode).toBe(422);
    const ok = await setup('another good secret');
    expect(ok.statusCode).toBe(200);
    expect(await loginStatus(email, 'another good secret')).toBe(200);
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('serves the Ed25519 public key that signs access tokens, and no private material', async () => {
    const res = await h.app.inject({ url: '/.well-known/jwks.json' });
    expect(res.statusCode).toBe(200);
    const { keys } = res.json();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    expect(keys[0].d).toBeUndefined();
    const { access } = await register(h.app);
    const header = JSON.parse(Buffer.from(defined(access.split('.')[0]), 'base64url').toString());
    expect(header).toMatchObject({ alg: 'EdDSA', kid: keys[0].kid });
  });
});

describe('OpenAPI', () => {
  it('documents every auth route on the canonical mount only', async () => {
    const res = await h.app.inject({ url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const paths = Object.keys(res.json().paths);
    for (const path of [
      'register',
      'login',
      'login/form',
      'refresh',
      'logout',
      'me',
      'status',
      'health',
      'set-local-password',
      'local/setup-password',
      'mfa/setup',
      'mfa/verify',
      'mfa',
    ]) {
      expect(paths).toContain(`/api/v1/auth/${path}`);
    }
    expect(paths.some((p) => p.startsWith('/v1/'))).toBe(false);
    const doc = res.json();
    const login = doc.paths['/api/v1/auth/login'].post;
    // Public: an empty security requirement, and the body is the named LoginRequest schema.
    expect(login.security).toEqual([]);
    expect(login.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/LoginRequest' });
    expect(doc.components.schemas.LoginRequest.properties).toHaveProperty('email');
  });
});
