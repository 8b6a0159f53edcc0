import { defined } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aliasApiFor, apiFor, startTarget, type Target } from '../src/harness.js';
import { fetchUndocumented } from '../src/undocumented.js';
import { tokensOf } from '../src/users.js';

let target: Target;
beforeAll(async () => {
  target = await startTarget();
});
afterAll(() => target?.close());

const password = 'correct horse battery';
const newEmail = () => `e2e-${crypto.randomUUID().slice(0, 8)}@example.test`;

describe('authentication through both mounts', () => {
  it('registers, logs in, reads the profile, and logout ends the token at once', async () => {
    const email = newEmail();
    const tenant = crypto.randomUUID();
    const registered = await apiFor(target).POST('/api/v1/auth/register', {
      body: { email, password, name: 'E2E', tenant_id: tenant },
    });
    expect(registered.response.status).toBe(201);
    expect(registered.data?.user).toMatchObject({ email, tenant_id: tenant, roles: ['admin'] });

    const login = await aliasApiFor(target).POST('/api/v1/auth/login', { body: { email, password } });
    expect(login.response.status).toBe(200);
    expect(login.response.headers.get('set-cookie')).toMatch(/HttpOnly/i);
    const token = tokensOf(login.data).access_token;

    for (const api of [apiFor(target, token), aliasApiFor(target, token)]) {
      const me = await api.GET('/api/v1/auth/me');
      expect(me.response.status).toBe(200);
      expect(me.data).toMatchObject({ email, tenant_id: tenant, sub: me.data?.id });
      expect(me.data?.exp).toBeGreaterThan(Date.now() / 1000);
    }
    const other = tokensOf((await apiFor(target).POST('/api/v1/auth/login', { body: { email, password } })).data);
    const asFirst = apiFor(target, token);
    const asOther = apiFor(target, other.access_token);
    expect((await asFirst.POST('/api/v1/auth/logout', { body: {} })).response.status).toBe(200);
    expect((await asFirst.GET('/api/v1/auth/me')).response.status).toBe(401);
    // Only that session ended.
    expect((await asOther.GET('/api/v1/auth/me')).response.status).toBe(200);
    await asOther.POST('/api/v1/auth/logout', { body: { logout_all: true } });
    expect((await asOther.GET('/api/v1/auth/me')).response.status).toBe(401);
  });

  it('gives identical answers for a wrong email and a wrong password', async () => {
    const email = newEmail();
    const api = apiFor(target);
    await api.POST('/api/v1/auth/register', { body: { email, password, tenant_id: crypto.randomUUID() } });
    const wrongPassword = await api.POST('/api/v1/auth/login', { body: { email, password: 'not the password' } });
    const wrongEmail = await api.POST('/api/v1/auth/login', { body: { email: newEmail(), password } });
    expect(wrongPassword.response.status).toBe(401);
    expect(wrongEmail.response.status).toBe(401);
    const strip = (body: object | undefined) => ({ ...body, request_id: undefined });
    expect(strip(wrongEmail.error)).toEqual(strip(wrongPassword.error));
  });

  it('serves the JWKS at the root and health without a token', async () => {
    // The JWKS is a standard well-known document, not an operation of the API document: a plain fetch.
    const jwks = await fetchUndocumented(target, '/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    const { keys } = (await jwks.json()) as { keys: Record<string, unknown>[] };
    expect(keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
    expect(keys[0]?.d).toBeUndefined();
    const health = await aliasApiFor(target).GET('/api/v1/auth/health');
    expect(health.response.status).toBe(200);
    expect(health.data).toMatchObject({ sso_configured: false, active_auth_method: 'local' });
  });

  it('two refreshes of one token at once both get a working session (the reuse grace of two tabs)', async () => {
    const api = apiFor(target);
    const first = await api.POST('/api/v1/auth/register', {
      body: { email: newEmail(), password, tenant_id: crypto.randomUUID() },
    });
    const refreshToken = tokensOf(first.data).refresh_token;
    const both = await Promise.all([
      api.POST('/api/v1/auth/refresh', { body: { refresh_token: refreshToken } }),
      api.POST('/api/v1/auth/refresh', { body: { refresh_token: refreshToken } }),
    ]);
    for (const answer of both) {
      expect(answer.response.status).toBe(200);
      const me = await apiFor(target, tokensOf(answer.data).access_token).GET('/api/v1/auth/me');
      expect(me.response.status).toBe(200);
    }
  });

  it('with the grace off, rejects a refresh token used twice and ends its family', async () => {
    const strict = await startTarget({ REFRESH_REUSE_GRACE_S: '0' });
    try {
      const api = apiFor(strict);
      const first = await api.POST('/api/v1/auth/register', {
        body: { email: newEmail(), password, tenant_id: crypto.randomUUID() },
      });
      const refreshToken = String(first.data?.refresh_token);
      const rotated = await api.POST('/api/v1/auth/refresh', { body: { refresh_token: refreshToken } });
      expect(rotated.response.status).toBe(200);
      const reused = await api.POST('/api/v1/auth/refresh', { body: { refresh_token: refreshToken } });
      expect(reused.response.status).toBe(401);
      const rotatedTokens = tokensOf(rotated.data);
      expect(
        (await api.POST('/api/v1/auth/refresh', { body: { refresh_token: rotatedTokens.refresh_token } })).response
          .status,
      ).toBe(401);
      expect((await apiFor(strict, rotatedTokens.access_token).GET('/api/v1/auth/me')).response.status).toBe(401);
    } finally {
      await strict.close();
    }
  });

  it("a browser's session: login sets both cookies, an empty refresh rotates them, logout clears them", async () => {
    const api = apiFor(target);
    const email = newEmail();
    await api.POST('/api/v1/auth/register', { body: { email, password, tenant_id: crypto.randomUUID() } });
    const login = await api.POST('/api/v1/auth/login', { body: { email, password } });
    const cookie = (res: Response, name: string) =>
      res.headers
        .getSetCookie()
        .find((line) => line.startsWith(`${name}=`))
        ?.split(';')[0]
        ?.slice(name.length + 1);
    const refreshCookie = cookie(login.response, 'routinely_refresh');
    expect(refreshCookie).toBe(tokensOf(login.data).refresh_token);
    // What the console's fetch sends: no body, the cookie, and the browser's same-origin marker.
    const refreshed = await api.POST('/api/v1/auth/refresh', {
      headers: { cookie: `routinely_refresh=${refreshCookie}`, 'sec-fetch-site': 'same-origin' },
    });
    expect(refreshed.response.status).toBe(200);
    expect(refreshed.data).not.toHaveProperty('access_token');
    const session = cookie(refreshed.response, 'routinely_session');
    const sameOrigin = { cookie: `routinely_session=${session}`, 'sec-fetch-site': 'same-origin' };
    expect((await api.GET('/api/v1/auth/me', { headers: sameOrigin })).response.status).toBe(200);
    const out = await api.POST('/api/v1/auth/logout', { headers: sameOrigin, body: {} });
    expect(out.response.status).toBe(200);
    expect(cookie(out.response, 'routinely_session')).toBe('');
    expect(cookie(out.response, 'routinely_refresh')).toBe('');
    expect((await api.GET('/api/v1/auth/me', { headers: sameOrigin })).response.status).toBe(401);
  });
});

describe('per-IP rate limit', () => {
  it('answers 429 rate_limited with Retry-After once the burst is spent', async () => {
    const limited = await startTarget({
      RATE_LIMIT_BURST: '5',
      RATE_LIMIT_PER_MINUTE: '100',
      RATE_LIMIT_PER_HOUR: '1000',
    });
    try {
      const health = () => apiFor(limited).GET('/api/v1/auth/health');
      const statuses: number[] = [];
      let last: Awaited<ReturnType<typeof health>> | undefined;
      for (let i = 0; i < 8; i++) {
        last = await health();
        statuses.push(last.response.status);
      }
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
      const limitedResponse = defined(last);
      expect(limitedResponse.response.status).toBe(429);
      expect(limitedResponse.error?.code).toBe('rate_limited');
      expect(Number(limitedResponse.response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(limitedResponse.response.headers.get('ratelimit-limit')).toBe('5');
    } finally {
      await limited.close();
    }
  });
});
