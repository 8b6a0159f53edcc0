import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError, createHttpApp, createLogger, IpRateLimiter, mountApi, requirePrincipal } from '../src/index.js';
import { defined, TestTokens } from '../src/testing.js';

const widgets: FastifyPluginAsync = async (app) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post(
    '/service/widgets',
    {
      config: { permission: 'SERVICE_TASK_CREATE' },
      schema: {
        body: z.object({ title: z.string().min(1), due_at: z.iso.datetime({ offset: true }).optional() }),
        response: { 201: z.object({ title: z.string(), owner: z.string() }) },
      },
    },
    async (request, reply) =>
      reply.status(201).send({ title: request.body.title, owner: requirePrincipal(request).userId }),
  );
  r.get(
    '/service/widgets/:widget_id',
    { schema: { params: z.object({ widget_id: z.uuid() }), response: { 200: z.object({ id: z.string() }) } } },
    async (request) => ({ id: request.params.widget_id }),
  );
  // A static sibling of /service/widgets/:widget_id that only POSTs (as POST /tasks/parse beside GET /tasks/:id).
  r.post('/service/widgets/import', { schema: { body: z.object({ text: z.string() }) } }, async () => ({ ok: true }));
  r.get('/service/widgets/boom', { config: { auth: 'none' } }, async () => {
    throw new Error('secret internals');
  });
  r.get(
    '/service/widgets/missing',
    { config: { auth: 'none' }, schema: { response: { 200: z.object({}) } } },
    async () => {
      throw new AppError('not_found', 'Widget not found');
    },
  );
};

let app: FastifyInstance;
let tokens: TestTokens;

beforeAll(async () => {
  tokens = await TestTokens.create();
  app = await createHttpApp({ logger: createLogger({ level: 'silent' }), verifyToken: tokens.verifier() });
  await mountApi(app, widgets, {});
  await app.ready();
});
afterAll(() => app.close());

describe('platform HTTP app', () => {
  it('serves a route on both mounts with auth, permission and validation in that order', async () => {
    const user = tokens.user();
    for (const prefix of ['/api/v1', '/v1']) {
      const ok = await app.inject({
        method: 'POST',
        url: `${prefix}/service/widgets`,
        headers: await tokens.auth(user),
        payload: { title: 'a' },
      });
      expect(ok.statusCode).toBe(201);
      expect(ok.json()).toEqual({ title: 'a', owner: user.userId });
    }
    const noToken = await app.inject({ method: 'POST', url: '/api/v1/service/widgets', payload: {} });
    expect(noToken.statusCode).toBe(401);
    expect(noToken.headers['www-authenticate']).toBe('Bearer');
    expect(noToken.headers['content-type']).toContain('application/problem+json');
    expect(noToken.json()).toMatchObject({ status: 401, code: 'not_authenticated' });
    const reader = tokens.user({ permissions: ['SERVICE_TASK_READ'] });
    const forbidden = await app.inject({
      method: 'POST',
      url: '/api/v1/service/widgets',
      headers: await tokens.auth(reader),
      payload: {},
    });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().code).toBe('forbidden');
    const invalid = await app.inject({
      method: 'POST',
      url: '/api/v1/service/widgets',
      headers: await tokens.auth(user),
      payload: { title: '', due_at: '2026-11-21T08:00:00' },
    });
    expect(invalid.statusCode).toBe(422);
    const body = invalid.json();
    expect(body.code).toBe('validation_failed');
    expect(body.errors.map((e: { loc: string[] }) => e.loc.join('.'))).toEqual(['body.title', 'body.due_at']);
    expect(body.request_id).toBe(invalid.headers['x-request-id']);
  });

  it('rejects alg none and tampered tokens', async () => {
    const user = tokens.user();
    const token = await tokens.token(user);
    const [h, p, s] = token.split('.');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${p}.`;
    const payload = JSON.parse(Buffer.from(defined(p), 'base64url').toString());
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...payload, sub: 'someone-else' })).toString('base64url')}.${s}`;
    for (const bad of [none, tampered, 'garbage']) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/service/widgets',
        headers: { authorization: `Bearer ${bad}` },
        payload: { title: 'x' },
      });
      expect(res.statusCode).toBe(401);
    }
  });

  it('hides internals of a 5xx, maps typed errors and unknown routes to problems', async () => {
    const boom = await app.inject({ url: '/api/v1/service/widgets/boom' });
    expect(boom.statusCode).toBe(500);
    expect(boom.body).not.toContain('secret internals');
    expect((await app.inject({ url: '/api/v1/service/widgets/missing' })).json()).toMatchObject({
      status: 404,
      code: 'not_found',
      detail: 'Widget not found',
    });
    expect((await app.inject({ url: '/api/v1/nope' })).statusCode).toBe(404);
  });

  it('answers a known path with a method it does not serve 405 with Allow, also where a parametric route would take it', async () => {
    const user = tokens.user();
    for (const method of ['GET', 'PATCH', 'DELETE', 'HEAD'] as const) {
      for (const auth of [{}, await tokens.auth(user)]) {
        const res = await app.inject({ method, url: '/api/v1/service/widgets/import', headers: auth });
        expect(res.statusCode, `${method} ${res.body}`).toBe(405);
        expect(res.headers.allow).toBe('POST');
        expect(res.headers['content-type']).toContain('application/problem+json');
        if (method !== 'HEAD') expect(res.json()).toMatchObject({ status: 405, code: 'method_not_allowed' });
      }
    }
    // The parametric route keeps every other path, and a method no route of the path has is 405 as before.
    const id = '0195f3a2-0000-7000-8000-000000000001';
    const own = await app.inject({ url: `/api/v1/service/widgets/${id}`, headers: await tokens.auth(user) });
    expect(own.statusCode).toBe(200);
    expect(
      (await app.inject({ url: '/api/v1/service/widgets/not-an-id', headers: await tokens.auth(user) })).statusCode,
    ).toBe(422);
    const put = await app.inject({ method: 'PUT', url: '/api/v1/service/widgets' });
    expect([put.statusCode, put.headers.allow]).toEqual([405, 'POST']);
  });

  it('documents only canonical routes in one OpenAPI 3.1 document', async () => {
    const doc = (await app.inject({ url: '/api/v1/openapi.json' })).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Routinely', version: '1.0.0' });
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    expect(Object.keys(doc.paths)).toContain('/api/v1/service/widgets');
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/v1/'))).toBe(false);
    expect(doc.paths['/api/v1/service/widgets'].post.security).toBeDefined();
    expect((await app.inject({ url: '/api/v1/docs' })).statusCode).toBeLessThan(400);
  });

  it('sends the alias docs page to the canonical one with a Location a browser keeps on this site', async () => {
    for (const [path, location] of [
      ['/v1/docs/index.html', '/api/v1/docs/index.html'],
      ['/v1/docs/%E3%80%82evil', '/api/v1/docs/%E3%80%82evil'],
      ['/v1/docs/a%0Db', '/api/v1/docs/a%0Db'],
    ]) {
      const res = await app.inject({ url: String(path) });
      expect(res.statusCode, path).toBe(302);
      expect(res.headers.location, path).toBe(location);
    }
  });

  it('documents the problem answers of every route from its auth, permission, path and input', async () => {
    const doc = (await app.inject({ url: '/api/v1/openapi.json' })).json();
    const create = doc.paths['/api/v1/service/widgets'].post.responses;
    // A body can be too large (413) or of a type the route does not read (415).
    expect(Object.keys(create).sort()).toEqual(['201', '401', '403', '413', '415', '422', '429']);
    // The shared answers live in components.responses; each is problem+json with the Problem schema.
    const resolve = (r: { $ref?: string }) => (r.$ref ? doc.components.responses[r.$ref.split('/').pop() ?? ''] : r);
    expect(doc.components.schemas.Problem.required).toEqual(
      expect.arrayContaining(['type', 'title', 'status', 'detail', 'code', 'request_id']),
    );
    for (const code of ['401', '403', '413', '415', '422', '429']) {
      const answer = resolve(create[code]);
      expect(Object.keys(answer.content)).toEqual(['application/problem+json']);
      expect(answer.content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' });
      expect(answer.headers).toHaveProperty('X-Request-Id');
    }
    expect(create['201'].headers).toHaveProperty('X-Request-Id');
    expect(Object.keys(resolve(create['429']).headers)).toEqual(
      expect.arrayContaining(['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
    );
    const read = doc.paths['/api/v1/service/widgets/{widget_id}'].get.responses;
    expect(Object.keys(read).sort()).toEqual(['200', '401', '404', '422', '429']);
    const publicRoute = doc.paths['/api/v1/service/widgets/missing'].get;
    expect(publicRoute.security).toEqual([]);
    expect(Object.keys(publicRoute.responses).sort()).toEqual(['200', '429']);
  });
});

describe('per-IP rate limit', () => {
  it('answers 429 with Retry-After and RateLimit headers past the burst', async () => {
    const limited = await createHttpApp({
      logger: createLogger({ level: 'silent' }),
      verifyToken: tokens.verifier(),
      rateLimiter: new IpRateLimiter({ perMinute: 100, perHour: 1000, burst: 3 }),
    });
    await mountApi(limited, widgets, {});
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof limited.inject>> | undefined;
    for (let i = 0; i < 4; i++) {
      last = await limited.inject({ url: '/api/v1/service/widgets/missing' });
      statuses.push(last.statusCode);
    }
    expect(statuses).toEqual([404, 404, 404, 429]);
    expect(last?.json().code).toBe('rate_limited');
    expect(Number(last?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(last?.headers['ratelimit-limit']).toBe('3');
    expect(last?.headers['ratelimit-remaining']).toBe('0');
    await limited.close();
  });
});
