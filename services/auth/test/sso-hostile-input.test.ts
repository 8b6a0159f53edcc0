import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserLogin, CLIENT_ID, cookieValue, newAccount, type SsoHarness, startSso } from './sso-harness.js';

describe('single sign-on: hostile return URLs and ID tokens', () => {
  let s: SsoHarness;
  beforeAll(async () => {
    s = await startSso();
  });
  afterAll(() => s?.close());

  const now = () => Math.floor(s.h.clock.now().getTime() / 1000);

  // U+3002 (IDNA reads it as a dot), U+FF0F (NFKC reads it as "/"), U+2028, U+3000, U+0130.
  const nonAscii = ['/。evil.test', '/／evil.test', '/a\u2028b', '/\u3000evil', '/\u0130stanbul'];

  it('refuses a return_url with characters outside ASCII at login (422 query.return_url), raw or percent-encoded', async () => {
    for (const value of nonAscii) {
      for (const query of [encodeURIComponent(value), value]) {
        for (const path of ['/auth/sso/login', '/auth/sso/register']) {
          const res = await s.h.app.inject({ url: `/api/v1${path}?return_url=${query}` });
          expect(res.statusCode, `${path} ${JSON.stringify(value)}`).toBe(422);
          expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
          expect(res.json().errors[0].loc).toEqual(['query', 'return_url']);
          expect(cookieValue(res, 'routinely_sso_flow')).toBeUndefined();
        }
      }
    }
  });

  it('refuses a path whose percent-decoded form a browser or client would read as another origin', async () => {
    for (const value of ['/%2F%2Fevil.test', '/%5Cevil.test', '/%EF%BC%8Fevil.test', '/%2f%5cevil.test']) {
      const res = await s.h.app.inject({ url: `/api/v1/auth/sso/login?return_url=${encodeURIComponent(value)}` });
      expect(res.statusCode, value).toBe(422);
      expect(res.json().errors[0].loc).toEqual(['query', 'return_url']);
    }
  });

  it('accepts a percent-encoded non-ASCII path and redirects there after the callback', async () => {
    const account = newAccount(s.idp);
    const flow = await browserLogin(s, account, { returnUrl: '/t%C3%A2ches/%E3%80%82' });
    expect(flow.res.statusCode, flow.res.body).toBe(302);
    expect(flow.res.headers.location).toBe('/t%C3%A2ches/%E3%80%82');
    expect(flow.session).toBeDefined();
  });

  it('refuses an ID token whose azp names another client (401 invalid_sso_token)', async () => {
    const account = newAccount(s.idp);
    const claims = {
      iss: s.idp.issuer,
      sub: account.sub,
      email: account.email,
      email_verified: true,
      iat: now(),
      exp: now() + 300,
    };
    const refused = {
      'azp of another client': await s.idp.sign({ ...claims, aud: CLIENT_ID, azp: 'another-client' }),
      'two audiences, no azp': await s.idp.sign({ ...claims, aud: [CLIENT_ID, 'another-client'] }),
      'two audiences, azp of the other': await s.idp.sign({
        ...claims,
        aud: [CLIENT_ID, 'another-client'],
        azp: 'another-client',
      }),
    };
    for (const [kind, token] of Object.entries(refused)) {
      for (const url of ['/api/v1/auth/sso/callback', '/api/v1/auth/login']) {
        const payload = url.endsWith('callback') ? { token } : { sso_token: token };
        const res = await s.h.app.inject({ method: 'POST', url, payload });
        expect(res.statusCode, `${kind} ${url}`).toBe(401);
        expect(res.json().code, kind).toBe('invalid_sso_token');
      }
      const validate = await s.h.app.inject({ method: 'POST', url: `/api/v1/auth/sso/validate?token=${token}` });
      expect(validate.json(), kind).toMatchObject({ valid: false });
    }
    // Our own client as the authorized party is fine, with one audience or several.
    for (const aud of [CLIENT_ID, [CLIENT_ID, 'another-client']]) {
      const token = await s.idp.sign({ ...claims, aud, azp: CLIENT_ID });
      const res = await s.h.app.inject({ method: 'POST', url: '/api/v1/auth/sso/callback', payload: { token } });
      expect(res.statusCode, res.body).toBe(200);
    }
  });

  it('refuses, on the browser callback, an ID token issued with the azp of another client', async () => {
    const account = newAccount(s.idp);
    s.idp.idTokenExtraClaims = { azp: 'another-client' };
    try {
      const flow = await browserLogin(s, account, { returnUrl: '/home' });
      expect(flow.res.statusCode).toBe(302);
      expect(flow.res.headers.location).toBe('/home?error=invalid_sso_token');
      expect(flow.session).toBeUndefined();
    } finally {
      s.idp.idTokenExtraClaims = {};
    }
    const flow = await browserLogin(s, account, { returnUrl: '/home' });
    expect(flow.res.headers.location).toBe('/home');
    expect(flow.session).toBeDefined();
  });
});
