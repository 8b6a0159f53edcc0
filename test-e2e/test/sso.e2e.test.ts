import { randomUUID } from 'node:crypto';
import { FakeIdp } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startLocalAllInOne, type Target } from '../src/harness.js';

const CLIENT_ID = 'routinely';
const CLIENT_SECRET = 'e2e-sso-client-secret';
const PUBLIC_BASE_URL = 'http://app.test';
const BACKCHANNEL_LOGOUT = 'http://schemas.openid.net/event/backchannel-logout';

const cookieOf = (headers: Headers, name: string) =>
  headers
    .getSetCookie()
    .map((c) => new RegExp(`^${name}=([^;]+)`).exec(c)?.[1])
    .find(Boolean);

// Needs the all-in-one in this process (the fake provider must reach it and it must reach the provider).
describe.skipIf(!!process.env.E2E_BASE_URL)('single sign-on across services (all-in-one + fake provider)', () => {
  let idp: FakeIdp;
  let target: Target;
  let close: () => Promise<void>;

  beforeAll(async () => {
    idp = await FakeIdp.start();
    const local = await startLocalAllInOne({
      SSO_ISSUER_URL: idp.issuer,
      SSO_CLIENT_ID: CLIENT_ID,
      SSO_CLIENT_SECRET: CLIENT_SECRET,
      SSO_ADMIN_API_URL: idp.adminUrl,
      PUBLIC_BASE_URL,
    });
    target = { baseUrl: local.running.url, close: local.close };
    close = local.close;
    idp.addClient({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUris: [`${PUBLIC_BASE_URL}/api/v1/auth/sso/callback`],
      postLogoutRedirectUris: [`${PUBLIC_BASE_URL}/`],
      backchannelLogoutUri: `${local.running.url}/api/v1/auth/sso/back-channel-logout`,
    });
  });
  afterAll(async () => {
    await close?.();
    await idp?.close();
  });

  it('a back-channel logout ends the SSO user on auth, task and calendar routes at once', async () => {
    const account = idp.addAccount({
      email: `e2e-sso-${randomUUID().slice(0, 8)}@example.test`,
      password: 'e2e-sso-password',
    });

    // The browser flow, by hand: start, provider form, callback (the public host rewritten to this instance).
    const start = await call(target, 'GET', '/v1/auth/sso/login?return_url=/home');
    expect(start.status).toBe(302);
    const flow = cookieOf(start.headers, 'routinely_sso_flow');
    const callback = new URL(await idp.browser().signIn(String(start.headers.get('location')), account));
    const done = await call(target, 'GET', `${callback.pathname}${callback.search}`, {
      headers: { cookie: `routinely_sso_flow=${flow}` },
    });
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).toBe('/home');
    const browserSession = cookieOf(done.headers, 'routinely_session') ?? '';

    // A second session of the same user from a provider token (with a refresh token).
    const now = Math.floor(Date.now() / 1000);
    const idToken = await idp.sign({
      iss: idp.issuer,
      aud: CLIENT_ID,
      sub: account.sub,
      email: account.email,
      email_verified: true,
      iat: now,
      exp: now + 300,
    });
    const tokens = await call(target, 'POST', '/api/v1/auth/sso/callback', { body: { token: idToken } });
    expect(tokens.status).toBe(200);

    const routes = ['/api/v1/auth/me', '/api/v1/service/tasks', '/v1/calendars'];
    for (const token of [browserSession, tokens.json.access_token]) {
      for (const path of routes) expect((await call(target, 'GET', path, { token })).status, path).toBe(200);
    }

    const logoutToken = await idp.sign({
      iss: idp.issuer,
      aud: CLIENT_ID,
      sub: account.sub,
      iat: now,
      jti: randomUUID(),
      events: { [BACKCHANNEL_LOGOUT]: {} },
    });
    const res = await fetch(`${target.baseUrl}/api/v1/auth/sso/back-channel-logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ logout_token: logoutToken }),
    });
    expect(res.status).toBe(200);

    for (const token of [browserSession, tokens.json.access_token]) {
      for (const path of routes) expect((await call(target, 'GET', path, { token })).status, path).toBe(401);
    }
    const refresh = await call(target, 'POST', '/api/v1/auth/refresh', {
      body: { refresh_token: tokens.json.refresh_token },
    });
    expect(refresh.status).toBe(401);
  });
});
