import { sqlRows } from '@routinely/testkit';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disableAccount } from './harness.js';
import { CLIENT_ID, me, newAccount, providerTokens, type SsoHarness, startSso } from './sso-harness.js';

describe('single sign-on: provider tokens presented by clients', () => {
  let s: SsoHarness;
  beforeAll(async () => {
    s = await startSso();
  });
  afterAll(() => s?.close());

  const callback = (token: string, url = '/api/v1/auth/sso/callback') =>
    s.h.app.inject({ method: 'POST', url, payload: { token } });
  const ssoLogin = (token: string) =>
    s.h.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { sso_token: token } });
  const now = () => Math.floor(s.h.clock.now().getTime() / 1000);
  const idClaims = (sub: string, email: string) => ({
    iss: s.idp.issuer,
    aud: CLIENT_ID,
    sub,
    email,
    email_verified: true,
    iat: now(),
    exp: now() + 300,
  });

  it('signs in with a provider ID token and with an access token (userinfo), on both routes and mounts', async () => {
    const account = newAccount(s.idp);
    const { idToken, accessToken } = await providerTokens(s.idp, account);
    const byId = await callback(idToken);
    expect(byId.statusCode, byId.body).toBe(200);
    expect(byId.json()).toMatchObject({ token_type: 'bearer', user: { email: account.email, auth_method: 'sso' } });
    expect(String(byId.headers['set-cookie'])).toMatch(/routinely_session=/);
    const userId = byId.json().user.id;

    const byAccess = await callback(accessToken, '/v1/auth/sso/callback');
    expect(byAccess.statusCode, byAccess.body).toBe(200);
    expect(byAccess.json().user.id).toBe(userId);

    const login = await ssoLogin(idToken);
    expect(login.statusCode).toBe(200);
    expect(login.json().user.id).toBe(userId);
    expect((await me(s.h.app, login.json().access_token)).json().id).toBe(userId);

    // A provider-signed ID token without a nonce (minted outside a browser flow) is accepted too.
    const minted = await s.idp.sign(idClaims(account.sub, account.email));
    expect((await ssoLogin(minted)).json().user.id).toBe(userId);
  });

  it('refuses tampered, alg none, foreign-signed, wrong-issuer, wrong-audience and expired ID tokens (401)', async () => {
    const account = newAccount(s.idp);
    const good = await s.idp.sign(idClaims(account.sub, account.email));
    const [header, payload, signature] = good.split('.');
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const foreign = await generateKeyPair('RS256', { extractable: true });
    const foreignJwk = await exportJWK(foreign.publicKey);
    const bad: Record<string, string> = {
      tampered: `${header}.${b64({ ...idClaims(account.sub, account.email), sub: 'someone-else' })}.${signature}`,
      'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`,
      'foreign-signed': await new SignJWT(idClaims(account.sub, account.email))
        .setProtectedHeader({ alg: 'RS256', kid: String(foreignJwk.kid ?? 'attacker') })
        .sign(foreign.privateKey),
      'wrong issuer': await s.idp.sign({ ...idClaims(account.sub, account.email), iss: 'https://evil.test/realms/x' }),
      'wrong audience': await s.idp.sign({ ...idClaims(account.sub, account.email), aud: 'another-client' }),
      expired: await s.idp.sign({ ...idClaims(account.sub, account.email), iat: now() - 3600, exp: now() - 600 }),
      'not a token': 'opaque-garbage-the-provider-never-issued',
    };
    for (const [kind, token] of Object.entries(bad)) {
      for (const res of [await callback(token), await ssoLogin(token)]) {
        expect(res.statusCode, kind).toBe(401);
        expect(res.json().code, kind).toBe('invalid_sso_token');
        expect(res.headers['www-authenticate']).toBe('Bearer');
        expect(res.headers['set-cookie']).toBeUndefined();
      }
    }
    // None of them created the account.
    const validate = await s.h.app.inject({ method: 'POST', url: `/api/v1/auth/sso/validate?token=${good}` });
    expect(validate.json().valid).toBe(true);
    expect(await sqlRows(s.h.orm, 'select count(*)::int as n from users where email = ?', [account.email])).toEqual([
      { n: 0 },
    ]);
  });

  it('validates a token without opening a session', async () => {
    const account = newAccount(s.idp);
    const { idToken, accessToken } = await providerTokens(s.idp, account);
    const validate = (token: string) =>
      s.h.app.inject({ method: 'POST', url: `/api/v1/auth/sso/validate?token=${encodeURIComponent(token)}` });
    const ok = await validate(idToken);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ valid: true, sub: account.sub, email: account.email });
    expect(ok.json().exp).toBeGreaterThan(now());
    expect(ok.json().claims.iss).toBe(s.idp.issuer);
    expect((await validate(accessToken)).json()).toMatchObject({ valid: true, sub: account.sub });
    const bad = await validate(`${idToken.slice(0, -4)}AAAA`);
    expect(bad.json()).toMatchObject({ valid: false });
    expect(typeof bad.json().error).toBe('string');
    const missing = await s.h.app.inject({ method: 'POST', url: '/api/v1/auth/sso/validate' });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors[0].loc).toEqual(['query', 'token']);
    const rows = await sqlRows(s.h.orm, 'select count(*)::int as n from users where email = ?', [account.email]);
    expect(rows).toEqual([{ n: 0 }]);
  });

  it('validates the bodies (422)', async () => {
    const empty = await s.h.app.inject({ method: 'POST', url: '/api/v1/auth/sso/callback', payload: {} });
    expect(empty.statusCode).toBe(422);
    expect(empty.json().errors[0].loc).toEqual(['body', 'token']);
    const blank = await ssoLogin('');
    expect(blank.statusCode).toBe(422);
  });

  it('refuses a provider account without an email (it cannot be matched or created safely)', async () => {
    const token = await s.idp.sign({ ...idClaims('no-email-sub', ''), email: undefined });
    const res = await callback(token);
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('invalid_sso_token');
  });

  it('creates a new SSO user in the X-Tenant-ID tenant (its first user is the admin); a disabled account is 403', async () => {
    const account = newAccount(s.idp);
    const token = await s.idp.sign(idClaims(account.sub, account.email));
    const badTenant = await s.h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/sso/callback',
      headers: { 'x-tenant-id': 'not-a-uuid' },
      payload: { token },
    });
    expect(badTenant.statusCode).toBe(422);
    expect(badTenant.json().errors[0].loc).toEqual(['headers', 'x-tenant-id']);
    const tenant = crypto.randomUUID();
    const res = await s.h.app.inject({
      method: 'POST',
      url: '/api/v1/auth/sso/callback',
      headers: { 'x-tenant-id': tenant },
      payload: { token },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().user).toMatchObject({ tenant_id: tenant, roles: ['admin'] });

    await disableAccount(s.h.orm, res.json().user.id);
    const disabled = await callback(token);
    expect(disabled.statusCode).toBe(403);
    expect(disabled.json().code).toBe('account_disabled');
  });
});
