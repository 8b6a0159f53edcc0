import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthHarness, bearer, postLogin, register, STRONG_PASSWORD, startAuth } from './harness.js';
import { newAccount, providerTokens, type SsoHarness, startSso } from './sso-harness.js';

describe('circuit breaker over the identity provider', () => {
  let s: SsoHarness;
  beforeAll(async () => {
    s = await startSso();
  });
  afterAll(() => s?.close());

  const health = async () => (await s.h.app.inject({ url: '/api/v1/auth/health' })).json();
  const tokenLogin = (token: string) =>
    s.h.app.inject({ method: 'POST', url: '/api/v1/auth/sso/callback', payload: { token } });

  it('opens after 5 failures in a row (errors and hangs), fails fast, keeps password login, recovers', async () => {
    const account = newAccount(s.idp);
    const { accessToken } = await providerTokens(s.idp, account);
    expect((await tokenLogin(accessToken)).statusCode).toBe(200);
    expect((await health()).circuit_breaker).toEqual({ state: 'closed', failures: 0 });

    s.idp.health = 'failing';
    for (let i = 0; i < 3; i += 1) {
      const res = await tokenLogin(accessToken);
      expect(res.statusCode).toBe(503);
      expect(res.json().code).toBe('sso_unavailable');
    }
    expect((await health()).circuit_breaker).toEqual({ state: 'closed', failures: 3 });
    s.idp.health = 'hanging';
    for (let i = 0; i < 2; i += 1) {
      const res = await tokenLogin(accessToken);
      expect(res.statusCode).toBe(503);
      expect(res.json().detail).toMatch(/did not answer in time/);
    }
    expect(await health()).toEqual({
      sso_available: false,
      sso_configured: true,
      circuit_breaker: { state: 'open', failures: 5 },
      auth_methods: ['sso', 'local'],
      active_auth_method: 'local',
    });

    // Open: every SSO route answers 503 at once and nothing reaches the provider.
    const reached = s.idp.requestCount;
    const attempts = [
      await s.h.app.inject({ url: '/api/v1/auth/sso/login' }),
      await s.h.app.inject({ url: '/v1/auth/sso/register' }),
      await tokenLogin(accessToken),
      await postLogin(s.h.app, { sso_token: accessToken }),
      await s.h.app.inject({ method: 'POST', url: `/api/v1/auth/sso/validate?token=${accessToken}` }),
      await s.h.app.inject({ url: '/api/v1/auth/sso/forgot-password' }),
    ];
    for (const res of attempts) {
      expect(res.statusCode).toBe(503);
      expect(res.json().code).toBe('sso_unavailable');
    }
    // Password sign-up and login keep working; registration skips the provider (sso_linked: false).
    const local = await register(s.h.app);
    expect(local.res.json().sso_linked).toBe(false);
    expect((await postLogin(s.h.app, { email: local.email, password: STRONG_PASSWORD })).statusCode).toBe(200);
    const status = await s.h.app.inject({ url: '/api/v1/auth/status', headers: bearer(local.access) });
    expect(status.json()).toMatchObject({ circuit_breaker: { state: 'open' }, authenticated: true });
    expect(s.idp.requestCount).toBe(reached);

    // After 30 s one trial goes through; a failed trial opens the circuit again.
    s.h.clock.advance(30_000);
    expect((await health()).circuit_breaker.state).toBe('half_open');
    s.idp.health = 'failing';
    expect((await tokenLogin(accessToken)).statusCode).toBe(503);
    expect(s.idp.requestCount).toBe(reached + 1);
    expect((await health()).circuit_breaker.state).toBe('open');

    s.h.clock.advance(30_000);
    s.idp.health = 'up';
    const trial = await tokenLogin(accessToken);
    expect(trial.statusCode).toBe(200);
    expect((await health()).circuit_breaker).toEqual({ state: 'closed', failures: 0 });
    expect((await s.h.app.inject({ url: '/api/v1/auth/sso/login' })).statusCode).toBe(302);
  });
});

describe('without SSO_ISSUER_URL', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth();
  });
  afterAll(() => h?.close());

  it('answers 503 sso_unavailable on every SSO route and works as before otherwise', async () => {
    const user = await register(h.app);
    expect(user.res.json().sso_linked).toBeUndefined();
    const calls = [
      ['GET', '/auth/sso/login', undefined],
      ['GET', '/auth/sso/register', undefined],
      ['GET', '/auth/sso/callback?code=a&state=b', undefined],
      ['POST', '/auth/sso/callback', { token: 'x' }],
      ['POST', '/auth/sso/validate?token=x', undefined],
      ['GET', '/auth/sso/forgot-password', undefined],
      ['GET', '/auth/sso/logout', undefined],
      ['POST', '/auth/sso/back-channel-logout', { logout_token: 'x' }],
      ['GET', '/auth/sso/front-channel-logout', undefined],
      ['POST', '/auth/sso/webhooks/idp-events', { id: 'e', type: 't', occurred_at: 'now', data: { sub: 's' } }],
      ['POST', '/auth/verify-email', undefined],
      ['POST', '/auth/resend-verification', undefined],
      ['GET', '/auth/available-roles', undefined],
      ['POST', '/auth/select-role', { role: 'user' }],
      ['POST', '/auth/login', { sso_token: 'x' }],
    ] as const;
    for (const mount of ['/api/v1', '/v1']) {
      for (const [method, path, payload] of calls) {
        const res = await h.app.inject({
          method,
          url: `${mount}${path}`,
          headers: bearer(user.access),
          ...(payload ? { payload } : {}),
        });
        expect(res.statusCode, `${method} ${mount}${path}`).toBe(503);
        expect(res.json().code).toBe('sso_unavailable');
      }
    }
    const status = await h.app.inject({ url: '/api/v1/auth/sso/status' });
    expect(status.json()).toEqual({
      sso_session: false,
      sso_configured: false,
      sso_available: false,
      issuer: null,
      session_expires_at: null,
    });
    expect((await h.app.inject({ url: '/api/v1/auth/health' })).json()).toMatchObject({
      sso_configured: false,
      auth_methods: ['local'],
      active_auth_method: 'local',
    });
    expect((await postLogin(h.app, { email: user.email, password: STRONG_PASSWORD })).statusCode).toBe(200);
  });
});
