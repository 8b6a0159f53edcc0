import { randomUUID } from 'node:crypto';
import { defined, FakeIdp } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aliasApiFor, apiFor, startLocalAllInOne, type Target } from '../src/harness.js';
import { fetchUndocumented } from '../src/undocumented.js';

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
    const start = await aliasApiFor(target).GET('/api/v1/auth/sso/login', {
      params: { query: { return_url: '/home' } },
    });
    expect(start.response.status).toBe(302);
    const flow = cookieOf(start.response.headers, 'routinely_sso_flow');
    const callback = new URL(await idp.browser().signIn(String(start.response.headers.get('location')), account));
    // The browser's callback (GET) is left out of the document on purpose: a navigation, not an API call.
    const done = await fetchUndocumented(target, `${callback.pathname}${callback.search}`, {
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
    const tokens = await apiFor(target).POST('/api/v1/auth/sso/callback', { body: { token: idToken } });
    expect(tokens.response.status).toBe(200);
    const providerSession = defined(tokens.data, 'the tokens');

    // One route of each service the session reaches, the calendar on the alias mount.
    const routes: Record<string, (token: string) => Promise<{ response: Response }>> = {
      '/api/v1/auth/me': (token) => apiFor(target, token).GET('/api/v1/auth/me'),
      '/api/v1/service/tasks': (token) => apiFor(target, token).GET('/api/v1/service/tasks'),
      '/v1/calendars': (token) => aliasApiFor(target, token).GET('/api/v1/calendars'),
    };
    for (const token of [browserSession, providerSession.access_token]) {
      for (const [path, read] of Object.entries(routes)) expect((await read(token)).response.status, path).toBe(200);
    }

    const logoutToken = await idp.sign({
      iss: idp.issuer,
      aud: CLIENT_ID,
      sub: account.sub,
      iat: now,
      jti: randomUUID(),
      events: { [BACKCHANNEL_LOGOUT]: {} },
    });
    // The provider posts a form; openapi-fetch encodes the body as one when told the content type.
    const res = await apiFor(target).POST('/api/v1/auth/sso/back-channel-logout', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: { logout_token: logoutToken },
    });
    expect(res.response.status).toBe(200);

    for (const token of [browserSession, providerSession.access_token]) {
      for (const [path, read] of Object.entries(routes)) expect((await read(token)).response.status, path).toBe(401);
    }
    const refresh = await apiFor(target).POST('/api/v1/auth/refresh', {
      body: { refresh_token: providerSession.refresh_token },
    });
    expect(refresh.response.status).toBe(401);
  });
});
