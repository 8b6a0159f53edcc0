import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SsoHarness, startSso } from './sso-harness.js';

const DOCUMENTED = {
  '/api/v1/auth/sso/login': 'get',
  '/api/v1/auth/sso/register': 'get',
  '/api/v1/auth/sso/callback': 'post',
  '/api/v1/auth/sso/validate': 'post',
  '/api/v1/auth/sso/status': 'get',
  '/api/v1/auth/sso/forgot-password': 'get',
  '/api/v1/auth/sso/logout': 'get',
  '/api/v1/auth/sso/back-channel-logout': 'post',
  '/api/v1/auth/sso/front-channel-logout': 'get',
  '/api/v1/auth/sso/webhooks/idp-events': 'post',
  '/api/v1/auth/verify-email': 'post',
  '/api/v1/auth/resend-verification': 'post',
  '/api/v1/auth/available-roles': 'get',
  '/api/v1/auth/select-role': 'post',
} as const;

describe('SSO routes in the OpenAPI document and on /v1', () => {
  let s: SsoHarness;
  beforeAll(async () => {
    s = await startSso();
  });
  afterAll(() => s?.close());

  it('documents every new route except the browser callback, on the canonical mount only', async () => {
    const doc = (await s.h.app.inject({ url: '/api/v1/openapi.json' })).json();
    for (const [path, method] of Object.entries(DOCUMENTED)) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    expect(doc.paths['/api/v1/auth/sso/callback'].get).toBeUndefined();
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/v1/'))).toBe(false);
    expect(doc.paths['/api/v1/auth/login'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/LoginRequest',
    });
    expect(doc.components.schemas.LoginRequest.properties).toHaveProperty('sso_token');
    expect(doc.paths['/api/v1/auth/sso/back-channel-logout'].post.requestBody.content).toHaveProperty(
      'application/x-www-form-urlencoded',
    );
    const events = doc.paths['/api/v1/auth/sso/webhooks/idp-events'].post;
    expect(events.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toContain(
      'header:x-idp-signature',
    );
    // Public SSO routes carry no security requirement; the admin-API routes need a bearer token.
    expect(doc.paths['/api/v1/auth/sso/login'].get.security).toEqual([]);
    expect(doc.paths['/api/v1/auth/select-role'].post.security).toBeDefined();
  });

  it('serves the same routes on /v1 with the same behaviour', async () => {
    for (const mount of ['/api/v1', '/v1']) {
      const login = await s.h.app.inject({ url: `${mount}/auth/sso/login?return_url=/x` });
      expect(login.statusCode).toBe(302);
      expect(String(login.headers.location).startsWith(s.idp.issuer)).toBe(true);
      const bad = await s.h.app.inject({ url: `${mount}/auth/sso/login?return_url=//evil.test` });
      expect(bad.statusCode).toBe(422);
      const status = await s.h.app.inject({ url: `${mount}/auth/sso/status` });
      expect(status.json()).toMatchObject({ sso_configured: true, sso_session: false });
      const back = await s.h.app.inject({ method: 'POST', url: `${mount}/auth/sso/back-channel-logout`, payload: {} });
      expect(back.statusCode).toBe(400);
      for (const [method, path] of [
        ['GET', '/auth/available-roles'],
        ['POST', '/auth/select-role'],
        ['POST', '/auth/verify-email'],
        ['POST', '/auth/resend-verification'],
      ] as const) {
        const res = await s.h.app.inject({ method, url: `${mount}${path}`, payload: {} });
        expect(res.statusCode, `${method} ${mount}${path}`).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer');
      }
    }
  });
});
