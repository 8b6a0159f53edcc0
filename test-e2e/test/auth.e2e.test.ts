import { defined } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTarget, type Target } from '../src/harness.js';

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
    const registered = await call(target, 'POST', '/api/v1/auth/register', {
      body: { email, password, name: 'E2E', tenant_id: tenant },
    });
    expect(registered.status).toBe(201);
    expect(registered.json.user).toMatchObject({ email, tenant_id: tenant, roles: ['admin'] });

    const login = await call(target, 'POST', '/v1/auth/login', { body: { email, password } });
    expect(login.status).toBe(200);
    expect(login.headers.get('set-cookie')).toMatch(/HttpOnly/i);
    const token = login.json.access_token as string;

    for (const prefix of ['/api/v1', '/v1']) {
      const me = await call(target, 'GET', `${prefix}/auth/me`, { token });
      expect(me.status).toBe(200);
      expect(me.json).toMatchObject({ email, tenant_id: tenant, sub: me.json.id });
      expect(me.json.exp).toBeGreaterThan(Date.now() / 1000);
    }
    const other = await call(target, 'POST', '/api/v1/auth/login', { body: { email, password } });
    expect((await call(target, 'POST', '/api/v1/auth/logout', { token, body: {} })).status).toBe(200);
    expect((await call(target, 'GET', '/api/v1/auth/me', { token })).status).toBe(401);
    // Only that session ended.
    expect((await call(target, 'GET', '/api/v1/auth/me', { token: other.json.access_token })).status).toBe(200);
    await call(target, 'POST', '/api/v1/auth/logout', { token: other.json.access_token, body: { logout_all: true } });
    expect((await call(target, 'GET', '/api/v1/auth/me', { token: other.json.access_token })).status).toBe(401);
  });

  it('gives identical answers for a wrong email and a wrong password', async () => {
    const email = newEmail();
    await call(target, 'POST', '/api/v1/auth/register', { body: { email, password, tenant_id: crypto.randomUUID() } });
    const wrongPassword = await call(target, 'POST', '/api/v1/auth/login', {
      body: { email, password: 'not the password' },
    });
    const wrongEmail = await call(target, 'POST', '/api/v1/auth/login', { body: { email: newEmail(), password } });
    expect(wrongPassword.status).toBe(401);
    expect(wrongEmail.status).toBe(401);
    const strip = (body: Record<string, unknown>) => ({ ...body, request_id: undefined });
    expect(strip(wrongEmail.json)).toEqual(strip(wrongPassword.json));
  });

  it('serves the JWKS at the root and health without a token', async () => {
    const jwks = await call(target, 'GET', '/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    expect(jwks.json.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
    expect(jwks.json.keys[0].d).toBeUndefined();
    const health = await call(target, 'GET', '/v1/auth/health');
    expect(health.status).toBe(200);
    expect(health.json).toMatchObject({ sso_configured: false, active_auth_method: 'local' });
  });

  it('rejects a refresh token used twice and ends its family', async () => {
    const email = newEmail();
    const first = await call(target, 'POST', '/api/v1/auth/register', {
      body: { email, password, tenant_id: crypto.randomUUID() },
    });
    const rotated = await call(target, 'POST', '/api/v1/auth/refresh', {
      body: { refresh_token: first.json.refresh_token },
    });
    expect(rotated.status).toBe(200);
    const reused = await call(target, 'POST', '/api/v1/auth/refresh', {
      body: { refresh_token: first.json.refresh_token },
    });
    expect(reused.status).toBe(401);
    expect(
      (await call(target, 'POST', '/api/v1/auth/refresh', { body: { refresh_token: rotated.json.refresh_token } }))
        .status,
    ).toBe(401);
    expect((await call(target, 'GET', '/api/v1/auth/me', { token: rotated.json.access_token })).status).toBe(401);
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
      const statuses: number[] = [];
      let last: Awaited<ReturnType<typeof call>> | undefined;
      for (let i = 0; i < 8; i++) {
        last = await call(limited, 'GET', '/api/v1/auth/health');
        statuses.push(last.status);
      }
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
      const limitedResponse = defined(last);
      expect(limitedResponse.status).toBe(429);
      expect(limitedResponse.json.code).toBe('rate_limited');
      expect(Number(limitedResponse.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(limitedResponse.headers.get('ratelimit-limit')).toBe('5');
    } finally {
      await limited.close();
    }
  });
});
