import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, postLogin, register, STRONG_PASSWORD } from './harness.js';
import { browserLogin, CLIENT_ID, newAccount, refresh, type SsoHarness, startSso } from './sso-harness.js';

describe("the provider's admin API (Keycloak realm admin REST)", () => {
  let s: SsoHarness;
  beforeAll(async () => {
    s = await startSso();
  });
  afterAll(() => s?.close());

  const post = (path: string, token: string, payload?: object) =>
    s.h.app.inject({ method: 'POST', url: `/api/v1${path}`, headers: bearer(token), ...(payload ? { payload } : {}) });

  it('registration also creates the user at the provider, who can then sign in there as the same user', async () => {
    const local = await register(s.h.app, { first_name: 'Reg' });
    expect(local.res.json().sso_linked).toBe(true);
    const atProvider = s.idp.store.byEmail(local.email);
    expect(atProvider).toMatchObject({ givenName: 'Reg', emailVerified: false, requiredActions: ['VERIFY_EMAIL'] });
    const flow = await browserLogin(s, { email: local.email, password: STRONG_PASSWORD });
    const me = await s.h.app.inject({
      url: '/api/v1/auth/me',
      headers: { cookie: `routinely_session=${flow.session}` },
    });
    expect(me.json().id).toBe(local.userId);
  });

  it('a provider failure still creates the local account (sso_linked: false)', async () => {
    s.idp.health = 'failing';
    try {
      const local = await register(s.h.app);
      expect(local.res.statusCode).toBe(201);
      expect(local.res.json().sso_linked).toBe(false);
      expect((await postLogin(s.h.app, { email: local.email, password: STRONG_PASSWORD })).statusCode).toBe(200);
    } finally {
      s.idp.health = 'up';
    }
    // An email the provider already has is not linked to a new local account (no takeover of either side).
    const taken = newAccount(s.idp);
    const clash = await register(s.h.app, { email: taken.email });
    expect(clash.res.json().sso_linked).toBe(false);
  });

  it("sends the provider's verify-email action for the caller (verify-email, resend-verification)", async () => {
    const local = await register(s.h.app);
    const sub = s.idp.store.byEmail(local.email)?.sub;
    for (const path of ['/auth/verify-email', '/auth/resend-verification']) {
      const res = await post(path, local.access);
      expect(res.statusCode, path).toBe(200);
      expect(res.json()).toEqual({ ok: true, sent: true });
    }
    const v1 = await s.h.app.inject({
      method: 'POST',
      url: '/v1/auth/resend-verification',
      headers: bearer(local.access),
    });
    expect(v1.statusCode).toBe(200);
    expect(s.idp.store.sentActions.filter((a) => a.sub === sub)).toHaveLength(3);
    expect(s.idp.store.sentActions.at(-1)?.actions).toEqual(['VERIFY_EMAIL']);

    s.idp.health = 'failing';
    const unlinked = await register(s.h.app);
    s.idp.health = 'up';
    const refused = await post('/auth/verify-email', unlinked.access);
    expect(refused.statusCode).toBe(409);
    expect((await s.h.app.inject({ method: 'POST', url: '/api/v1/auth/verify-email' })).statusCode).toBe(401);
  });

  it('lists the client roles the provider grants and takes one locally; never raises rights', async () => {
    const account = newAccount(s.idp, { clientRoles: { [CLIENT_ID]: ['user', 'auditor'] } });
    // Another user is the tenant's first (admin), so this one starts as a plain user.
    await register(s.h.app);
    const flow = await browserLogin(s, account);
    const access = flow.session ?? '';
    const roles = await s.h.app.inject({ url: '/api/v1/auth/available-roles', headers: bearer(access) });
    expect(roles.statusCode).toBe(200);
    expect(roles.json()).toEqual([
      { name: 'user', description: 'Regular user' },
      { name: 'auditor', description: 'Not a role the service knows' },
    ]);

    const raise = await post('/auth/select-role', access, { role: 'admin' });
    expect(raise.statusCode).toBe(403);
    expect(raise.json().code).toBe('forbidden');
    const unknown = await post('/auth/select-role', access, { role: 'auditor' });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().errors[0].loc).toEqual(['body', 'role']);
    expect((await post('/auth/select-role', access, {})).statusCode).toBe(422);

    // Granted at the provider: the role is taken locally, and the permissions follow at the next refresh.
    account.clientRoles[CLIENT_ID] = ['user', 'admin'];
    const now = Math.floor(s.h.clock.now().getTime() / 1000);
    const idToken = await s.idp.sign({
      iss: s.idp.issuer,
      aud: CLIENT_ID,
      sub: account.sub,
      email: account.email,
      iat: now,
      exp: now + 300,
    });
    const login = (
      await s.h.app.inject({ method: 'POST', url: '/api/v1/auth/sso/callback', payload: { token: idToken } })
    ).json();
    const taken = await post('/auth/select-role', login.access_token, { role: 'admin' });
    expect(taken.statusCode).toBe(200);
    expect(taken.json().roles).toEqual(['admin']);
    const refreshed = await refresh(s.h.app, login.refresh_token);
    expect(refreshed.json().user.permissions).toContain('SERVICE_ADMIN');
  });

  it('lists and grants a role the provider describes without a description (Keycloak leaves the key out)', async () => {
    await register(s.h.app);
    const account = newAccount(s.idp, { clientRoles: { [CLIENT_ID]: ['admin', 'user'] } });
    const access = (await browserLogin(s, account)).session ?? '';
    const roles = await s.h.app.inject({ url: '/api/v1/auth/available-roles', headers: bearer(access) });
    expect(roles.statusCode).toBe(200);
    expect(roles.json()).toEqual([
      { name: 'user', description: 'Regular user' },
      { name: 'admin', description: null },
    ]);
    const taken = await post('/auth/select-role', access, { role: 'admin' });
    expect(taken.statusCode, taken.body).toBe(200);
    expect(taken.json().roles).toEqual(['admin']);
  });

  it('answers 503 sso_unavailable for the admin routes when no admin API is configured', async () => {
    const plain = await startSso({ admin: false });
    try {
      const local = await register(plain.h.app);
      expect(local.res.json().sso_linked).toBeUndefined();
      for (const [method, path] of [
        ['POST', '/auth/verify-email'],
        ['POST', '/auth/resend-verification'],
        ['GET', '/auth/available-roles'],
      ] as const) {
        const res = await plain.h.app.inject({ method, url: `/api/v1${path}`, headers: bearer(local.access) });
        expect(res.statusCode, path).toBe(503);
        expect(res.json().code).toBe('sso_unavailable');
      }
    } finally {
      await plain.close();
    }
  });
});
