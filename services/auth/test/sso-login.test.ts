import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postLogin, register, STRONG_PASSWORD } from './harness.js';
import {
  ALLOWED_ORIGIN,
  bearer,
  browserLogin,
  CALLBACK,
  CLIENT_ID,
  cookieValue,
  me,
  newAccount,
  type SsoHarness,
  startSso,
} from './sso-harness.js';

describe('single sign-on: the browser flow', () => {
  let s: SsoHarness;
  beforeAll(async () => {
    s = await startSso();
  });
  afterAll(() => s?.close());

  it('walks login -> provider form -> callback -> session cookie -> /auth/me, keyed by (issuer, sub)', async () => {
    const account = newAccount(s.idp);
    const flow = await browserLogin(s, account, { returnUrl: '/dashboard?tab=today' });
    const authorize = new URL(String(flow.start.headers.location));
    expect(authorize.origin).toBe(new URL(s.idp.issuer).origin);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: CLIENT_ID,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid email profile',
      code_challenge_method: 'S256',
    });
    expect(authorize.searchParams.get('state')).toBeTruthy();
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(String(flow.start.headers['set-cookie'])).toMatch(
      /routinely_sso_flow=[^;]+; Max-Age=600; Path=\/; HttpOnly/,
    );

    expect(flow.res.statusCode).toBe(302);
    expect(flow.res.headers.location).toBe('/dashboard?tab=today');
    expect(flow.session).toBeTruthy();
    // Both web cookies, as after a password login: the refresh cookie works on its own.
    const refreshCookie = cookieValue(flow.res, 'routinely_refresh');
    expect(String(flow.res.headers['set-cookie'])).toMatch(
      /routinely_refresh=[^;]+; Max-Age=\d+; Path=\/api\/v1\/auth; HttpOnly; SameSite=Strict/,
    );
    const refreshed = await s.h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/refresh',
      headers: { cookie: `routinely_refresh=${refreshCookie}`, 'sec-fetch-site': 'same-origin' },
    });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    expect(refreshed.json().access_token).toBeUndefined();
    const profile = await s.h.app.inject({
      url: '/api/v1/auth/me',
      headers: { cookie: `routinely_session=${flow.session}` },
    });
    expect(profile.statusCode).toBe(200);
    expect(profile.json()).toMatchObject({
      email: account.email,
      auth_method: 'sso',
      has_local_password: false,
      is_verified: true,
      first_name: 'Sam',
    });
    const status = await s.h.app.inject({
      url: '/api/v1/auth/sso/status',
      headers: { cookie: `routinely_session=${flow.session}` },
    });
    expect(status.json()).toMatchObject({
      sso_session: true,
      sso_configured: true,
      sso_available: true,
      issuer: s.idp.issuer,
    });
    expect(Date.parse(status.json().session_expires_at)).toBeGreaterThan(Date.now());

    // The same provider identity signs in to the same local user, even after an email change at the provider.
    account.email = `changed.${account.email}`;
    const again = await browserLogin(s, account);
    // Without a return_url the browser lands on the console's home page.
    expect(again.res.headers.location).toBe('/home');
    const second = await me(s.h.app, again.session ?? '');
    expect(second.json().id).toBe(profile.json().id);
  });

  it('refuses a replayed callback, an unknown state and a callback carried to another browser', async () => {
    const account = newAccount(s.idp);
    const flow = await browserLogin(s, account, { returnUrl: '/home' });
    expect(flow.res.statusCode).toBe(302);
    const replay = await s.h.app.inject({
      url: flow.callbackPath,
      headers: { cookie: `routinely_sso_flow=${flow.flow}` },
    });
    expect(replay.statusCode).toBe(302);
    expect(replay.headers.location).toBe('/home?error=invalid_state');
    expect(cookieValue(replay, 'routinely_session')).toBeUndefined();

    const unknown = await s.h.app.inject({ url: '/api/v1/auth/sso/callback?code=x&state=never-issued' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toBe('invalid_state');

    // Login CSRF: a victim's browser without the starter's flow cookie cannot complete someone else's login.
    const start = await s.h.app.inject({ url: '/api/v1/auth/sso/login?return_url=/x' });
    const callback = new URL(await s.idp.browser().signIn(String(start.headers.location), account));
    const foreign = await s.h.app.inject({ url: `${callback.pathname}${callback.search}` });
    expect(foreign.headers.location).toBe('/x?error=invalid_state');
    expect(cookieValue(foreign, 'routinely_session')).toBeUndefined();
  });

  it('expires a started login after 10 minutes', async () => {
    const account = newAccount(s.idp);
    const start = await s.h.app.inject({ url: '/api/v1/auth/sso/login?return_url=/late' });
    const flow = cookieValue(start, 'routinely_sso_flow');
    const callback = new URL(await s.idp.browser().signIn(String(start.headers.location), account));
    s.h.clock.advance(601_000);
    try {
      const res = await s.h.app.inject({
        url: `${callback.pathname}${callback.search}`,
        headers: { cookie: `routinely_sso_flow=${flow}` },
      });
      expect(res.headers.location).toBe('/late?error=invalid_state');
    } finally {
      s.h.clock.advance(-601_000);
    }
  });

  it('allows relative paths and allowed origins as return_url, never an open redirect (422)', async () => {
    for (const bad of [
      '//evil.test/x',
      '/\\evil.test',
      'javascript:alert(1)',
      'https://evil.test/x',
      'http://app.test@evil.test/',
      'ftp://web.example.test/',
    ]) {
      for (const path of ['/auth/sso/login', '/auth/sso/register']) {
        const res = await s.h.app.inject({ url: `/api/v1${path}?return_url=${encodeURIComponent(bad)}` });
        expect(res.statusCode, `${path} ${bad}`).toBe(422);
        expect(res.json().errors[0].loc).toEqual(['query', 'return_url']);
      }
    }
    const account = newAccount(s.idp);
    const flow = await browserLogin(s, account, { returnUrl: `${ALLOWED_ORIGIN}/after-login` });
    expect(flow.res.headers.location).toBe(`${ALLOWED_ORIGIN}/after-login`);
    const own = await s.h.app.inject({
      url: `/api/v1/auth/sso/login?return_url=${encodeURIComponent('http://app.test/x')}`,
    });
    expect(own.statusCode).toBe(302);
  });

  it('signs up at the provider with prompt=create', async () => {
    const start = await s.h.app.inject({ url: '/api/v1/auth/sso/register' });
    expect(start.statusCode).toBe(302);
    expect(new URL(String(start.headers.location)).searchParams.get('prompt')).toBe('create');
    const email = `signup.${Date.now()}@example.test`;
    const callback = new URL(
      await s.idp
        .browser()
        .signIn(String(start.headers.location), { email, password: 'a-new-password', given_name: 'New' }),
    );
    const res = await s.h.app.inject({
      url: `${callback.pathname}${callback.search}`,
      headers: { cookie: `routinely_sso_flow=${cookieValue(start, 'routinely_sso_flow')}` },
    });
    expect(res.statusCode).toBe(302);
    const profile = await me(s.h.app, cookieValue(res, 'routinely_session') ?? '');
    expect(profile.json()).toMatchObject({ email, auth_method: 'sso', is_verified: false, first_name: 'New' });
  });

  it('logs out through the provider with id_token_hint and ends the local session', async () => {
    const account = newAccount(s.idp);
    const flow = await browserLogin(s, account);
    const out = await s.h.app.inject({
      url: '/api/v1/auth/sso/logout',
      headers: { cookie: `routinely_session=${flow.session}` },
    });
    expect(out.statusCode).toBe(302);
    const target = new URL(String(out.headers.location));
    expect(target.toString().startsWith(s.idp.issuer)).toBe(true);
    expect(target.searchParams.get('id_token_hint')).toBeTruthy();
    expect(target.searchParams.get('post_logout_redirect_uri')).toBe('http://app.test/');
    expect(String(out.headers['set-cookie'])).toMatch(/routinely_session=;.*Max-Age=0/);
    expect(String(out.headers['set-cookie'])).toMatch(/routinely_refresh=;.*Max-Age=0.*Path=\/api\/v1\/auth/);
    expect((await me(s.h.app, flow.session ?? '')).statusCode).toBe(401);
    // The provider accepts the hint and signs the browser out there too.
    expect(await flow.browser.signOut(target.toString())).toBe('http://app.test/');

    const anonymous = await s.h.app.inject({ url: '/api/v1/auth/sso/logout' });
    expect(anonymous.statusCode).toBe(302);
    expect(anonymous.headers.location).toBe('/');
  });

  it("redirects forgot-password to the provider's recovery page", async () => {
    const res = await s.h.app.inject({ url: '/api/v1/auth/sso/forgot-password' });
    expect(res.statusCode).toBe(302);
    const target = new URL(String(res.headers.location));
    expect(`${target.origin}${target.pathname}`).toBe(`${s.idp.issuer}/login-actions/reset-credentials`);
    const page = await fetch(target);
    expect(page.status).toBe(200);
  });

  it('reports SSO in /auth/health and /auth/status', async () => {
    const health = await s.h.app.inject({ url: '/api/v1/auth/health' });
    expect(health.json()).toEqual({
      sso_available: true,
      sso_configured: true,
      circuit_breaker: { state: 'closed', failures: 0 },
      auth_methods: ['sso', 'local'],
      active_auth_method: 'sso',
    });
    const local = await register(s.h.app);
    const status = await s.h.app.inject({ url: '/api/v1/auth/status', headers: bearer(local.access) });
    expect(status.json()).toMatchObject({ sso_configured: true, authenticated: true, user_id: local.userId });
    const ssoStatus = await s.h.app.inject({ url: '/api/v1/auth/sso/status', headers: bearer(local.access) });
    expect(ssoStatus.json()).toMatchObject({ sso_session: false, session_expires_at: null });
  });
});

// Without the admin API, so password registrations stay local-only (no provider account is created for them).
describe('single sign-on: linking local accounts', () => {
  let s: SsoHarness;
  beforeAll(async () => {
    s = await startSso({ admin: false });
  });
  afterAll(() => s?.close());

  it('links a local account on a verified email, and never on an unverified one', async () => {
    const local = await register(s.h.app);
    const unverified = newAccount(s.idp, { email: local.email, emailVerified: false });
    const refused = await browserLogin(s, unverified, { returnUrl: '/in' });
    expect(refused.res.headers.location).toBe('/in?error=email_taken');
    expect(refused.session).toBeUndefined();
    const still = await me(s.h.app, local.access);
    expect(still.json()).toMatchObject({ auth_method: 'local' });
    // The unverified provider account was not linked: removing it and verifying a new one links instead.
    s.idp.store.accounts.delete(unverified.sub);
    const verified = newAccount(s.idp, { email: local.email, emailVerified: true });
    const linked = await browserLogin(s, verified);
    const profile = await me(s.h.app, linked.session ?? '');
    expect(profile.json()).toMatchObject({ id: local.userId, auth_method: 'sso', has_local_password: true });
    // The local password keeps working as the fallback.
    expect((await postLogin(s.h.app, { email: local.email, password: STRONG_PASSWORD })).statusCode).toBe(200);
  });
});
