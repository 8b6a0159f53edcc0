import { type Orm, openOrm, Sql } from '@routinely/db';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createHttpApp, createLogger, mountApi } from '../src/index.js';
import { TestTokens } from '../src/testing.js';

const SECRET_HASH = '$argon2id$v=19$m=65536,t=3,p=4$c2VjcmV0c2FsdA$SECRETHASHVALUE';
const lines: string[] = [];
let app: FastifyInstance;
let tokens: TestTokens;
let orm: Orm;

const notes: FastifyPluginAsync = async (fastify) => {
  const r = fastify.withTypeProvider<ZodTypeProvider>();
  r.post(
    '/service/notes/:note_id',
    {
      schema: {
        params: z.object({ note_id: z.string() }),
        querystring: z.object({ tag: z.string().optional() }),
        body: z.object({ title: z.string(), items: z.array(z.object({ text: z.string() })).optional() }),
      },
    },
    async (request, reply) => reply.status(201).send({ title: request.body.title }),
  );
  r.post('/service/notes-csv', { config: { auth: 'none' }, schema: { consumes: ['text/csv'] } }, async (request) => ({
    length: String(request.body).length,
  }));
  r.post(
    '/service/notes-form',
    { config: { auth: 'none' }, schema: { consumes: ['application/x-www-form-urlencoded'] } },
    async () => ({ ok: true }),
  );
  // A database failure whose statement carries a secret: the log must show neither.
  r.post('/service/notes-db', { config: { auth: 'none' } }, async () => {
    await Sql.of(orm).run('select ?::int as hash', [SECRET_HASH]);
    return { ok: true };
  });
};

beforeAll(async () => {
  tokens = await TestTokens.create();
  orm = await openOrm(process.env.DATABASE_URL as string, {
    schema: 'testkit_unsafe_input',
    entities: [],
    migrations: [],
  });
  const destination = { write: (line: string) => void lines.push(line) };
  app = await createHttpApp({ logger: createLogger({ level: 'info', destination }), verifyToken: tokens.verifier() });
  await mountApi(app, notes, {});
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await orm.close();
});

describe('NUL bytes and unpaired surrogates', () => {
  it('are refused as 422 naming the field, in JSON bodies, nested arrays, query and params', async () => {
    const headers = await tokens.auth(tokens.user());
    for (const [bad, payload, url, extraHeaders, loc] of [
      ['nul in body', { title: 'a\u0000b' }, '/api/v1/service/notes/n1', {}, ['body', 'title']],
      ['surrogate in body', { title: '\ud800' }, '/api/v1/service/notes/n1', {}, ['body', 'title']],
      [
        'low surrogate nested',
        { title: 'x', items: [{ text: 'ok' }, { text: 'a\udc00' }] },
        '/api/v1/service/notes/n1',
        {},
        ['body', 'items', 1, 'text'],
      ],
      ['nul in query', { title: 'x' }, '/api/v1/service/notes/n1?tag=a%00b', {}, ['query', 'tag']],
      ['nul in params', { title: 'x' }, '/api/v1/service/notes/a%00b', {}, ['params', 'note_id']],
    ] as const) {
      const res = await app.inject({ method: 'POST', url, headers: { ...headers, ...extraHeaders }, payload });
      expect(res.statusCode, bad).toBe(422);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().code).toBe('validation_failed');
      expect(res.json().errors.map((e: { loc: unknown }) => e.loc)).toContainEqual(loc);
    }
    const paired = await app.inject({
      method: 'POST',
      url: '/api/v1/service/notes/n1',
      headers,
      payload: { title: 'ok \ud83d\ude00' },
    });
    expect(paired.statusCode).toBe(201);
    expect(paired.json()).toEqual({ title: 'ok \ud83d\ude00' });
  });

  it('are refused in raw JSON escapes, CSV text bodies and form bodies', async () => {
    const json = await app.inject({
      method: 'POST',
      url: '/api/v1/service/notes/n1',
      headers: { ...(await tokens.auth(tokens.user())), 'content-type': 'application/json' },
      payload: '{"title":"\\ud800"}',
    });
    expect(json.statusCode).toBe(422);
    expect(json.json().errors[0].loc).toEqual(['body', 'title']);
    const csv = await app.inject({
      method: 'POST',
      url: '/api/v1/service/notes-csv',
      headers: { 'content-type': 'text/csv' },
      payload: 'title\na\u0000b\n',
    });
    expect(csv.statusCode).toBe(422);
    expect(csv.json().errors[0].loc).toEqual(['body']);
    const form = await app.inject({
      method: 'POST',
      url: '/api/v1/service/notes-form',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'username=a%00b&password=x',
    });
    expect(form.statusCode).toBe(422);
    expect(form.json().errors[0].loc).toEqual(['body', 'username']);
  });
});

describe('error logs', () => {
  it('never carry the failing statement, its bind values or the value PostgreSQL quotes', async () => {
    lines.length = 0;
    const res = await app.inject({ method: 'POST', url: '/api/v1/service/notes-db', payload: {} });
    expect(res.statusCode).toBe(500);
    expect(res.body).not.toContain('SECRETHASHVALUE');
    const log = lines.join('');
    expect(log).toContain('unhandled error');
    expect(log).toContain('22P02');
    expect(log).not.toContain('SECRETHASHVALUE');
    expect(log).not.toContain('select');
  });

  it('redacts credentials logged as fields, top level or nested', () => {
    const captured: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => void captured.push(line) } });
    logger.info({ password_hash: SECRET_HASH, user: { refresh_token: 'RT-SECRET', id_token: 'IDT-SECRET' } }, 'x');
    const text = captured.join('');
    expect(text).not.toContain('SECRETHASHVALUE');
    expect(text).not.toContain('RT-SECRET');
    expect(text).not.toContain('IDT-SECRET');
  });
});
