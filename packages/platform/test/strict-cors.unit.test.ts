import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpApp, createLogger, mountApi, unknownFields } from '../src/index.js';
import { TestTokens } from '../src/testing.js';

const reminder = z.object({ offset_min: z.number().int(), channels: z.array(z.enum(['email', 'webhook'])) });
const body = z.object({
  title: z.string(),
  reminder: reminder.nullable().optional(),
  rows: z.array(z.object({ ref: z.string() })).optional(),
  tags: z
    .array(z.string())
    .transform((t) => [...new Set(t)])
    .optional(),
});

const routes: FastifyPluginAsync = async (app) => {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.post('/service/things', { config: { auth: 'none' }, schema: { body } }, async (request) => request.body);
  r.post(
    '/service/open-things',
    { config: { auth: 'none' }, schema: { body: z.looseObject({ title: z.string() }) } },
    async (request) => request.body,
  );
};

let app: FastifyInstance;

beforeAll(async () => {
  const tokens = await TestTokens.create();
  app = await createHttpApp({
    logger: createLogger({ level: 'silent' }),
    verifyToken: tokens.verifier(),
    allowedOrigins: ['https://app.example.com'],
  });
  await mountApi(app, routes, {});
  await app.ready();
});
afterAll(() => app.close());

describe('strict request bodies', () => {
  it('refuses unknown fields at any depth with a 422 naming each one', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/service/things',
      payload: {
        title: 'a',
        dealine_at: '2026-01-01',
        reminder: { offset_min: 5, channels: ['email'], chanels: [] },
        rows: [{ ref: 'x' }, { ref: 'y', parent: 'x' }],
      },
    });
    expect(res.statusCode).toBe(422);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json().errors).toEqual([
      { loc: ['body', 'dealine_at'], msg: 'Unknown parameter: dealine_at', type: 'unrecognized_keys' },
      {
        loc: ['body', 'reminder', 'chanels'],
        msg: 'Unknown parameter: chanels; did you mean channels?',
        type: 'unrecognized_keys',
      },
      { loc: ['body', 'rows', 1, 'parent'], msg: 'Unknown parameter: parent', type: 'unrecognized_keys' },
    ]);
  });

  it('lists unknown fields in the same 422 as the fields zod refuses', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/service/things',
      payload: { colour: 'red', reminder: { offset_min: 'soon', channels: [], chanels: [] } },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors.map((e: { loc: unknown[]; type: string }) => [e.loc, e.type])).toEqual([
      [['body', 'title'], 'invalid_type'],
      [['body', 'reminder', 'offset_min'], 'invalid_type'],
      [['body', 'colour'], 'unrecognized_keys'],
      [['body', 'reminder', 'chanels'], 'unrecognized_keys'],
    ]);
  });

  it('accepts known fields (through nullable, transforms and arrays) and schemas that allow extras', async () => {
    const ok = await app.inject({
      method: 'POST',
      url: '/v1/service/things',
      payload: { title: 'a', reminder: null, tags: ['x', 'x'], rows: [{ ref: 'r' }] },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ title: 'a', reminder: null, tags: ['x'], rows: [{ ref: 'r' }] });
    const loose = await app.inject({
      method: 'POST',
      url: '/api/v1/service/open-things',
      payload: { title: 'a', first_name: 'Ada' },
    });
    expect(loose.statusCode).toBe(200);
    expect(loose.json()).toEqual({ title: 'a', first_name: 'Ada' });
  });

  it('checks unions by the option that accepts the value', () => {
    const schema = z.union([z.object({ kind: z.literal('a'), x: z.number() }), z.object({ kind: z.literal('b') })]);
    expect(unknownFields(schema, { kind: 'b', x: 1 }).map((i) => i.path)).toEqual([['x']]);
    expect(unknownFields(schema, { kind: 'a', x: 1 })).toEqual([]);
  });
});

describe('CORS', () => {
  it('answers a preflight from an allowed origin before authentication, and nothing for other origins', async () => {
    const preflight = (origin: string) =>
      app.inject({
        method: 'OPTIONS',
        url: '/api/v1/service/things',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
    const allowed = await preflight('https://app.example.com');
    expect(allowed.statusCode).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(allowed.headers['access-control-allow-credentials']).toBe('true');
    expect(String(allowed.headers['access-control-allow-methods'])).toContain('PATCH');
    const other = await preflight('https://evil.example.net');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('exposes the request id and rate-limit headers to allowed origins on real answers', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/service/things',
      headers: { origin: 'https://app.example.com' },
      payload: { title: 'a' },
    });
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example.com');
    const exposed = String(res.headers['access-control-expose-headers']).split(/\s*,\s*/);
    // Every header that carries data a browser client acts on: ids, totals, where to poll, rate-limit state.
    expect(exposed).toEqual(
      expect.arrayContaining(['X-Request-Id', 'X-Total-Count', 'Location', 'Retry-After', 'RateLimit-Remaining']),
    );
    const other = await app.inject({
      method: 'POST',
      url: '/api/v1/service/things',
      headers: { origin: 'https://evil.example.net' },
      payload: { title: 'a' },
    });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});
