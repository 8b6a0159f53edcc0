import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpApp, createLogger, mountApi, requirePrincipal, SESSION_COOKIE } from '../src/index.js';
import { TestTokens } from '../src/testing.js';

const items: FastifyPluginAsync = async (fastify) => {
  const r = fastify.withTypeProvider<ZodTypeProvider>();
  r.post('/service/items', { schema: { body: z.object({ title: z.string() }).optional() } }, async (request) => ({
    owner: requirePrincipal(request).userId,
  }));
  r.get('/service/items', async (request) => ({ owner: requirePrincipal(request).userId }));
  r.post('/service/import', { config: { auth: 'none' } }, async () => ({ ok: true }));
};

let app: FastifyInstance;
let tokens: TestTokens;
let base: string;

beforeAll(async () => {
  tokens = await TestTokens.create();
  app = await createHttpApp({
    logger: createLogger({ level: 'silent' }),
    verifyToken: tokens.verifier(),
    allowedOrigins: ['https://app.example', 'http://localhost:5173'],
  });
  await mountApi(app, items, {});
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => app.close());

async function cookieOf(): Promise<string> {
  const headers = await tokens.auth(tokens.user());
  return `${SESSION_COOKIE}=${headers.authorization.slice('Bearer '.length)}`;
}

describe('cookie CSRF guard', () => {
  it('refuses cookie-authenticated writes from other origins or without an origin, JSON or form', async () => {
    const cookie = await cookieOf();
    for (const [why, headers, payload] of [
      ['evil origin, JSON', { origin: 'https://evil.example', 'content-type': 'application/json' }, '{"title":"x"}'],
      [
        'evil origin, form',
        { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
        'title=x',
      ],
      ['no origin, no fetch metadata', { 'content-type': 'application/json' }, '{"title":"x"}'],
      ['cross-site fetch metadata', { 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }, '{}'],
      [
        'allowed origin but form body',
        { origin: 'https://app.example', 'content-type': 'application/x-www-form-urlencoded' },
        'title=x',
      ],
      [
        'allowed origin but text/plain',
        { origin: 'https://app.example', 'content-type': 'text/plain' },
        '{"title":"x"}',
      ],
      ['origin null', { origin: 'null', 'content-type': 'application/json' }, '{}'],
    ] as const) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/service/items',
        headers: { cookie, ...headers },
        payload,
      });
      expect(res.statusCode, why).toBe(403);
      expect(res.json().code, why).toBe('forbidden');
    }
  });

  it('lets same-origin cookie writes, cookie reads and every bearer request through', async () => {
    const cookie = await cookieOf();
    const json = { 'content-type': 'application/json' };
    const allowed = await app.inject({
      method: 'POST',
      url: '/api/v1/service/items',
      headers: { cookie, origin: 'https://APP.example', ...json },
      payload: '{"title":"x"}',
    });
    expect(allowed.statusCode).toBe(200);
    const sameSite = await app.inject({
      method: 'POST',
      url: '/api/v1/service/items',
      headers: { cookie, 'sec-fetch-site': 'same-origin', ...json },
      payload: '{"title":"x"}',
    });
    expect(sameSite.statusCode).toBe(200);
    const read = await app.inject({
      method: 'GET',
      url: '/api/v1/service/items',
      headers: { cookie, origin: 'https://evil.example' },
    });
    expect(read.statusCode).toBe(200);
    const bearer = await app.inject({
      method: 'POST',
      url: '/api/v1/service/items',
      headers: { ...(await tokens.auth(tokens.user())), origin: 'https://evil.example', ...json },
      payload: '{"title":"x"}',
    });
    expect(bearer.statusCode).toBe(200);
  });
});

describe('framework-level requests', () => {
  it('refuses a bearer header with anything after the token', async () => {
    const headers = await tokens.auth(tokens.user());
    const res = await app.inject({
      method: 'GET',
      url: '/api/v1/service/items',
      headers: { authorization: `${headers.authorization} extra` },
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.json().code).toBe('not_authenticated');
    const token = headers.authorization?.split(' ')[1] ?? '';
    for (const malformed of [
      `Bearer ${token}\t`,
      `Bearer\t${token}`,
      `Bearer ${token.slice(0, 9)} ${token.slice(9)}`,
      'Bearer ',
      `Basic ${token}`,
    ]) {
      const refused = await app.inject({
        method: 'GET',
        url: '/api/v1/service/items',
        headers: { authorization: malformed },
      });
      expect(refused.statusCode, malformed.slice(0, 12)).toBe(401);
    }
    for (const accepted of [`bearer ${token}`, `BEARER  ${token}  `]) {
      const res = await app.inject({
        method: 'GET',
        url: '/api/v1/service/items',
        headers: { authorization: accepted },
      });
      expect(res.statusCode, accepted.slice(0, 12)).toBe(200);
    }
  });

  it('keeps only a short, safe X-Request-ID from clients', async () => {
    const kept = await app.inject({
      method: 'GET',
      url: '/livez-nope',
      headers: { 'x-request-id': 'abc-123.DEF_4:5' },
    });
    expect(kept.headers['x-request-id']).toBe('abc-123.DEF_4:5');
    expect(kept.json().request_id).toBe('abc-123.DEF_4:5');
    for (const bad of ['a'.repeat(65), 'x y', '<script>', 'a\tb', 'é']) {
      const res = await app.inject({ method: 'GET', url: '/livez-nope', headers: { 'x-request-id': bad } });
      expect(res.headers['x-request-id']).not.toBe(bad);
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('answers unknown routes, long URIs and oversized headers as problem+json', async () => {
    const unknown = await app.inject({ method: 'GET', url: '/api/v1/nothing-here' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toContain('application/problem+json');
    const long = await fetch(`${base}/api/v1/service/items?q=${'a'.repeat(9000)}`);
    expect(long.status).toBe(414);
    expect(long.headers.get('content-type')).toContain('application/problem+json');
    expect(((await long.json()) as { code: string }).code).toBe('uri_too_long');
    const big = await rawGet(base, { 'x-big': 'b'.repeat(20_000) });
    expect(big.status).toBe(431);
    expect(big.contentType).toContain('application/problem+json');
    expect(JSON.parse(big.body).code).toBe('headers_too_large');
  });

  it('never lets a NUL or a surrogate reach a route through a header (why unsafe-text.ts skips headers)', async () => {
    const token = (await tokens.auth(tokens.user())).authorization ?? '';
    const withHeader = (value: Buffer) =>
      rawSocket(
        base,
        Buffer.concat([
          Buffer.from(`GET /api/v1/service/items HTTP/1.1\r\nHost: x\r\nAuthorization: ${token}\r\nX-Note: `),
          value,
          Buffer.from('\r\nConnection: close\r\n\r\n'),
        ]),
      );
    const nul = await withHeader(Buffer.from([0x61, 0x00, 0x62]));
    // Refused by Node's parser before routing (problemClientErrorHandler), not by a route.
    expect(nul).toMatch(/^HTTP\/1\.1 422 /);
    expect(nul).toContain('"type":"http_invalid"');
    // The UTF-8 bytes of a lone surrogate arrive as three Latin-1 characters, none of them a surrogate.
    expect(await withHeader(Buffer.from([0xed, 0xa0, 0x80]))).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('answers a known path with the wrong method as 405 problem+json', async () => {
    const res = await app.inject({ method: 'DELETE', url: '/api/v1/service/items' });
    expect(res.statusCode).toBe(405);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json().code).toBe('method_not_allowed');
    expect(res.headers.allow).toContain('GET');
  });
});

/** Writes `bytes` to the server as they are (no client-side header checks) and reads the answer to the end. */
function rawSocket(url: string, bytes: Buffer): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; contentType: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/api/v1/service/items`, { headers }, (res) => {
      let body = '';
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type']), body }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('security headers', () => {
  it('marks API answers uncacheable and unframeable, and gives the docs page a content security policy', async () => {
    const api = await app.inject({ method: 'POST', url: '/api/v1/service/import', payload: {} });
    expect(api.headers['cache-control']).toBe('no-store');
    expect(api.headers['x-content-type-options']).toBe('nosniff');
    expect(api.headers['x-frame-options']).toBe('DENY');
    const docs = await app.inject({ method: 'GET', url: '/api/v1/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(docs.headers['content-security-policy']).toContain("script-src 'self'");
    expect(docs.headers['x-content-type-options']).toBe('nosniff');
    expect(docs.headers['x-frame-options']).toBe('DENY');
    expect(docs.headers['referrer-policy']).toBe('no-referrer');
  });
});
