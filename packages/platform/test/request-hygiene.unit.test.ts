import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpApp, createLogger, mountApi } from '../src/index.js';
import { TestTokens } from '../src/testing.js';

const routes: FastifyPluginAsync = async (fastify) => {
  const r = fastify.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/service/things',
    {
      schema: { querystring: z.object({ status: z.enum(['open', 'done']).optional(), limit: z.string().optional() }) },
    },
    async (request) => ({ status: request.query.status ?? null }),
  );
  r.get('/service/plain', async () => ({ ok: true }));
  r.post(
    '/service/things',
    { schema: { body: z.object({ title: z.string(), deadline_at: z.string().optional() }) } },
    async (request, reply) => reply.status(201).send({ title: request.body.title }),
  );
  r.patch(
    '/service/profile',
    { schema: { body: z.object({ name: z.string().optional(), timezone: z.string().optional() }).strict() } },
    async () => ({ ok: true }),
  );
  r.post('/service/things/:thing_id/archive', { schema: { params: z.object({ thing_id: z.string() }) } }, async () => ({
    archived: true,
  }));
  r.post(
    '/service/login-form',
    {
      config: { auth: 'none' },
      schema: { consumes: ['application/x-www-form-urlencoded'], body: z.looseObject({ username: z.string() }) },
    },
    async (request) => ({ username: request.body.username }),
  );
  r.get('/service/redirect', { config: { auth: 'none' } }, async (_request, reply) =>
    reply.redirect('/return/\u3002evil'),
  );
};

let app: FastifyInstance;
let tokens: TestTokens;
let auth: Record<string, string>;

beforeAll(async () => {
  tokens = await TestTokens.create();
  app = await createHttpApp({ logger: createLogger({ level: 'silent' }), verifyToken: tokens.verifier() });
  await mountApi(app, routes, {});
  await app.ready();
  auth = await tokens.auth(tokens.user());
});
afterAll(() => app.close());

const locs = (body: { errors: { loc: unknown[] }[] }) => body.errors.map((e) => e.loc);

describe('unknown fields, in the query as in the body', () => {
  it('refuses a misspelt query parameter as 422 naming query.<name>, with a hint', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/v1/service/things?stauts=done', headers: auth });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(locs(res.json())).toEqual([['query', 'stauts']]);
    expect(res.json().errors[0].msg).toContain('did you mean status?');
    const known = await app.inject({ method: 'GET', url: '/api/v1/service/things?status=done', headers: auth });
    expect(known.json()).toEqual({ status: 'done' });
  });

  it('refuses any query parameter on an operation that takes none, on both mounts', async () => {
    for (const mount of ['/api/v1', '/v1']) {
      const res = await app.inject({ method: 'GET', url: `${mount}/service/plain?verbose=1`, headers: auth });
      expect(res.statusCode, res.body).toBe(422);
      expect(locs(res.json())).toEqual([['query', 'verbose']]);
    }
  });

  it('hints the near field of a misspelt body field, and gives no hint for another word', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/service/things',
      headers: auth,
      payload: { title: 'x', dealine_at: '2026-01-01', colour: 'red' },
    });
    expect(res.statusCode).toBe(422);
    const [misspelt, other] = res.json().errors;
    expect(misspelt).toMatchObject({
      loc: ['body', 'dealine_at'],
      msg: expect.stringContaining('did you mean deadline_at?'),
    });
    expect(other).toMatchObject({ loc: ['body', 'colour'], type: 'unrecognized_keys' });
    expect(other.msg).not.toContain('did you mean');
  });

  it("names each unknown field of a strict object in loc (zod's own issue names only the object)", async () => {
    const res = await app.inject({
      method: 'PATCH',
      url: '/api/v1/service/profile',
      headers: auth,
      payload: { name: 'A', timezon: 'UTC', nickname: 'a' },
    });
    expect(res.statusCode).toBe(422);
    expect(locs(res.json())).toEqual([
      ['body', 'timezon'],
      ['body', 'nickname'],
    ]);
    expect(res.json().errors[0].msg).toContain('did you mean timezone?');
  });

  it('lists at most 50 field errors, with errors_total counting them all', async () => {
    const payload = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, 1]));
    const res = await app.inject({ method: 'POST', url: '/api/v1/service/things', headers: auth, payload });
    expect(res.statusCode).toBe(422);
    const body = res.json();
    expect(body.errors).toHaveLength(50);
    expect(body.errors_total).toBe(50_001);
    expect(res.body.length).toBeLessThan(20_000);
    const few = await app.inject({ method: 'POST', url: '/api/v1/service/things', headers: auth, payload: {} });
    expect(few.json().errors).toHaveLength(1);
    expect(few.json()).not.toHaveProperty('errors_total');
  });
});

describe('bodies and their media types', () => {
  it('runs a bodyless action sent with content-type application/json and no body', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/service/things/t1/archive',
      headers: { ...auth, 'content-type': 'application/json' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ archived: true });
    const needsBody = await app.inject({
      method: 'POST',
      url: '/api/v1/service/things',
      headers: { ...auth, 'content-type': 'application/json' },
    });
    expect(needsBody.statusCode).toBe(422);
    expect(locs(needsBody.json())).toEqual([['body']]);
  });

  it('answers JSON sent as a form (curl -d) with 415 naming application/json; form routes keep their forms', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/service/things',
      headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
      payload: '{"title":"x"}',
    });
    expect(res.statusCode, res.body).toBe(415);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({
      code: 'unsupported_media_type',
      detail: expect.stringContaining('application/json'),
    });
    const xml = await app.inject({
      method: 'POST',
      url: '/api/v1/service/things',
      headers: { ...auth, 'content-type': 'application/xml' },
      payload: '<title>x</title>',
    });
    expect(xml.statusCode).toBe(415);
    const form = await app.inject({
      method: 'POST',
      url: '/api/v1/service/login-form',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'username=ann&password=x',
    });
    expect(form.statusCode, form.body).toBe(200);
    expect(form.json()).toEqual({ username: 'ann' });
    const jsonToForm = await app.inject({
      method: 'POST',
      url: '/api/v1/service/login-form',
      headers: { 'content-type': 'application/json' },
      payload: '{"username":"ann"}',
    });
    expect(jsonToForm.statusCode).toBe(415);
    expect(jsonToForm.json().detail).toContain('application/x-www-form-urlencoded');
  });
});

describe("the framework's own errors", () => {
  it('answers a path parameter over the length limit as 414 problem+json', async () => {
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/service/things/${'a'.repeat(300)}/archive`,
      headers: auth,
    });
    expect(res.statusCode).toBe(414);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ code: 'uri_too_long', status: 414, request_id: expect.any(String) });
    expect(res.headers['x-request-id']).toBe(res.json().request_id);
  });

  it('answers a malformed percent-encoding in the path as problem+json', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/service/things/%E0%A4%A/archive', headers: auth });
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ code: 'validation_failed', errors: [{ loc: ['path'] }] });
  });

  it('answers a reply whose header Node cannot write (ERR_INVALID_CHAR) as a 500 problem, not fastify’s body', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/v1/service/redirect' });
    expect(res.statusCode).toBe(500);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ code: 'internal_error' });
    expect(res.headers.location).toBeUndefined();
  });
});
