import { defined } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthHarness,
  bearer,
  disableAccount,
  postLogin,
  register,
  STRONG_PASSWORD,
  startAuth,
  uniqueEmail,
} from './harness.js';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth({ env: { LOGIN_MAX_FAILURES_PER_ACCOUNT_IP: '3', LOGIN_SLOWDOWN_AFTER_ACCOUNT_FAILURES: '4' } });
});
afterAll(() => h?.close());

const TENANT_A = '01900000-0000-7000-8000-00000000000a';
const TENANT_B = '01900000-0000-7000-8000-00000000000b';

const login = (body: Record<string, unknown>, ip = '10.0.0.1') => postLogin(h.app, body, ip);

describe('POST /auth/register', () => {
  it('creates the tenant admin first and plain users after, with the contract token response', async () => {
    const first = await register(h.app, {
      tenant_id: TENANT_A,
      name: 'Ada',
      timezone: 'Europe/Paris',
      favourite_colour: 'teal',
    });
    const body = first.res.json();
    expect(first.res.statusCode).toBe(201);
    expect(body).toMatchObject({ token_type: 'bearer', expires_in: 900, refresh_expires_in: 30 * 24 * 3600 });
    expect(body.user).toMatchObject({
      email: first.email,
      name: 'Ada',
      tenant_id: TENANT_A,
      roles: ['admin'],
      auth_method: 'local',
      has_local_password: true,
      mfa_enabled: false,
      is_active: true,
      timezone: 'Europe/Paris',
      extra: { favourite_colour: 'teal' },
    });
    expect(body.user.permissions).toContain('SERVICE_ADMIN');
    expect(body.user.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(body.user.created_at).toMatch(/Z$/);
    // Anyone after the first joins by the tenant's policy: an invitation by default.
    const invitation = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/tenant/invites',
      headers: bearer(body.access_token),
      payload: {},
    });
    const second = (await register(h.app, { tenant_id: TENANT_A, invite_token: invitation.json().token })).res.json();
    expect(second.user.roles).toEqual(['user']);
    expect(second.user.permissions).not.toContain('SERVICE_ADMIN');
    expect(second.user.permissions).toContain('SERVICE_TASK_CREATE');
  });

  it('takes the tenant from the body, else X-Tenant-ID, else the default tenant', async () => {
    const byHeader = (await register(h.app, {}, { 'x-tenant-id': TENANT_B })).res.json();
    expect(byHeader.user.tenant_id).toBe(TENANT_B);
    const byDefault = (await register(h.app)).res.json();
    expect(byDefault.user.tenant_id).toBe(h.config.DEFAULT_TENANT_ID);
    const bad = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/register',
      headers: { 'x-tenant-id': 'not-a-uuid' },
      payload: { email: uniqueEmail(), password: STRONG_PASSWORD },
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].loc).toEqual(['headers', 'x-tenant-id']);
  });

  it('refuses an existing email (any case) with 409 email_taken', async () => {
    const { email } = await register(h.app);
    const again = await h.app.inject({
      method: 'POST',
      url: '/v1/auth/register',
      payload: { email: email.toUpperCase(), password: STRONG_PASSWORD },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('email_taken');
  });

  it('refuses weak passwords and bad emails with 422 naming the field', async () => {
    for (const password of ['short1', 'x'.repeat(129), 'Password123', 'qwertyuiop']) {
      const res = await h.app.inject({
        method: 'POST',
        url: '/api/v1/auth/register',
        payload: { email: uniqueEmail(), password },
      });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors.map((e: { loc: string[] }) => e.loc.join('.'))).toEqual(['body.password']);
    }
    const badEmail = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/register',
      payload: { email: 'nope', password: STRONG_PASSWORD },
    });
    expect(badEmail.statusCode).toBe(422);
    expect(badEmail.json().errors[0].loc).toEqual(['body', 'email']);
  });
});

describe('POST /auth/login', () => {
  it('returns tokens and sets an HttpOnly SameSite=Lax session cookie holding the access token', async () => {
    const { email } = await register(h.app);
    const res = await login({ email, password: STRONG_PASSWORD });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.user.email).toBe(email);
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toContain(`routinely_session=${body.access_token}`);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).not.toContain('Secure');
    // The cookie alone authenticates.
    const me = await h.app.inject({ url: '/api/v1/auth/me', cookies: { routinely_session: body.access_token } });
    expect(me.statusCode).toBe(200);
    expect(me.json().email).toBe(email);
  });

  it('answers a wrong email and a wrong password identically', async () => {
    const { email } = await register(h.app);
    const wrongPassword = await login({ email, password: 'not the password' }, '10.0.1.1');
    const wrongEmail = await login({ email: uniqueEmail('ghost'), password: 'not the password' }, '10.0.1.2');
    expect(wrongPassword.statusCode).toBe(401);
    expect(wrongEmail.statusCode).toBe(401);
    const strip = (r: typeof wrongEmail) => ({ ...r.json(), request_id: undefined });
    expect(strip(wrongEmail)).toEqual(strip(wrongPassword));
    expect(wrongEmail.headers['www-authenticate']).toBe(wrongPassword.headers['www-authenticate']);
    expect(strip(wrongEmail).code).toBe('invalid_credentials');
  });

  it('gives 403 account_disabled for a disabled account, only with the right password', async () => {
    const { email, userId } = await register(h.app);
    await disableAccount(h.orm, userId);
    expect((await login({ email, password: 'wrong password!' }, '10.0.2.1')).statusCode).toBe(401);
    const res = await login({ email, password: STRONG_PASSWORD }, '10.0.2.1');
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('account_disabled');
  });

  it('validates the body (422) and refuses sso_token while SSO is not configured', async () => {
    const missing = await login({ email: 'a@b.test' });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors.map((e: { loc: string[] }) => e.loc.join('.'))).toEqual(['body.password']);
    // Contract: without SSO_ISSUER_URL, SSO answers 503 sso_unavailable (password login is unaffected).
    const sso = await login({ sso_token: 'abc' });
    expect(sso.statusCode).toBe(503);
    expect(sso.json().code).toBe('sso_unavailable');
  });

  it('blocks an (account, IP) pair after repeated failures but never the owner from another IP', async () => {
    const { email } = await register(h.app);
    for (let i = 0; i < 3; i++)
      expect((await login({ email, password: 'bad guess 123' }, '10.9.9.9')).statusCode).toBe(401);
    const blocked = await login({ email, password: STRONG_PASSWORD }, '10.9.9.9');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().code).toBe('rate_limited');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    const owner = await login({ email, password: STRONG_PASSWORD }, '10.1.1.1');
    expect(owner.statusCode).toBe(200);
  });

  it('slows logins to an account attacked from many IPs instead of locking it', async () => {
    const { email } = await register(h.app);
    h.sleeps.length = 0;
    for (let i = 0; i < 7; i++) await login({ email, password: 'bad guess 123' }, `10.20.0.${i}`);
    expect(h.sleeps.length).toBeGreaterThan(0);
    expect(h.sleeps.at(-1)).toBeGreaterThan(defined(h.sleeps[0]));
    const owner = await login({ email, password: STRONG_PASSWORD }, '10.30.0.1');
    expect(owner.statusCode).toBe(200);
  });
});

describe('POST /auth/login/form', () => {
  it('accepts OAuth2 password-flow form fields and returns a token response', async () => {
    const { email } = await register(h.app);
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login/form',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ username: email, password: STRONG_PASSWORD, grant_type: 'password' }).toString(),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ token_type: 'bearer', user: { email } });
    const me = await h.app.inject({ url: '/v1/auth/me', headers: bearer(res.json().access_token) });
    expect(me.statusCode).toBe(200);
  });

  it('gives 422 without the password field and 401 on a wrong one', async () => {
    const headers = { 'content-type': 'application/x-www-form-urlencoded' };
    const missing = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login/form',
      headers,
      payload: 'username=a%40b.test',
    });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors[0].loc).toEqual(['body', 'password']);
    const wrong = await h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login/form',
      headers,
      payload: 'username=nobody%40b.test&password=whatever1',
      remoteAddress: '10.40.0.1',
    });
    expect(wrong.statusCode).toBe(401);
  });
});
