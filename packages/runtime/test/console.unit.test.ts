import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { AppError, createHttpApp, createLogger, mountApi } from '@routinely/platform';
import { type ConsoleFixture, writeConsoleFixture } from '@routinely/testkit/console-fixture';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP, registerConsole } from '../src/console.js';

// The console served beside the API (contract, "Web console"; ADR 101), from a fixture folder laid out as Vite
// builds one: nothing here depends on the app being built.

async function hostWithConsole(dir: string): Promise<FastifyInstance> {
  const app = await createHttpApp({
    logger: createLogger({ name: 'console-test', level: 'silent' }),
    verifyToken: async () => {
      throw new AppError('not_authenticated', 'no tokens here');
    },
  });
  await mountApi(
    app,
    async (api) => {
      api.get('/auth/health', { config: { auth: 'none' } }, async () => ({ ok: true }));
    },
    {},
  );
  await registerConsole(app, { dir });
  return app;
}

const expectConsoleHeaders = (res: LightMyRequestResponse) => {
  const csp = String(res.headers['content-security-policy']);
  const scripts = /script-src ([^;]*)/.exec(csp)?.[1] ?? '';
  expect(scripts).toBe("'self'");
  expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toBe(CONSOLE_CSP);
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('same-origin');
};

describe('a built console', () => {
  let fixture: ConsoleFixture;
  let app: FastifyInstance;
  beforeAll(async () => {
    fixture = writeConsoleFixture();
    app = await hostWithConsole(fixture.dir);
  });
  afterAll(() => app?.close());

  it.each([
    '/',
    '/home',
    '/calendar/week/2026-11-23',
    '/settings/calendars?status=error&error=access_denied',
    '/tasks/0195f3a2-7c41-7d2e-9b1a-3f6e2d4c5b7a',
  ])('answers index.html at %s, never cached without revalidation', async (url) => {
    const res = await app.inject({ url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toBe(fixture.indexHtml);
    expectConsoleHeaders(res);
  });

  it('revalidates index.html (304 with its ETag) and answers HEAD without a body', async () => {
    const first = await app.inject({ url: '/' });
    const again = await app.inject({ url: '/home', headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.statusCode).toBe(304);
    const head = await app.inject({ method: 'HEAD', url: '/calendar' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
  });

  it('serves hashed assets immutable with their content type, precompressed when a .br or .gz is beside them', async () => {
    const plain = await app.inject({ url: fixture.script.path });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(fixture.script.body);
    expectConsoleHeaders(plain);

    const br = await app.inject({ url: fixture.script.path, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(String(br.headers.vary)).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(fixture.script.body);
    const gzip = await app.inject({ url: fixture.script.path, headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(fixture.script.body);
  });

  it('compresses on the fly what has no precompressed copy (gzip and brotli)', async () => {
    for (const [encoding, decode] of [
      ['br', brotliDecompressSync],
      ['gzip', gunzipSync],
    ] as const) {
      const res = await app.inject({ url: fixture.style.path, headers: { 'accept-encoding': encoding } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/css; charset=utf-8');
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(decode(res.rawPayload).toString()).toBe(fixture.style.body);
      expect(res.rawPayload.length).toBeLessThan(fixture.style.body.length);
    }
  });

  it('serves an unhashed root file for revalidation, and a missing hashed asset as 404, never as HTML', async () => {
    const icon = await app.inject({ url: '/favicon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toBe('image/svg+xml');
    expect(icon.headers['cache-control']).toBe('no-cache');
    const stale = await app.inject({ url: '/assets/index-OldBuild1.js' });
    expect(stale.statusCode).toBe(404);
    expect(stale.headers['content-type']).not.toMatch(/html/);
    expectConsoleHeaders(stale);
  });

  it('leaves the API alone: its routes answer, its unknown paths are problem+json 404 on both mounts', async () => {
    const health = await app.inject({ url: '/api/v1/auth/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ ok: true });
    expect(health.headers['content-security-policy']).not.toBe(CONSOLE_CSP);
    for (const [method, url] of [
      ['GET', '/api/v1/nothing-here'],
      ['GET', '/v1/nothing-here'],
      ['GET', '/api'],
      ['GET', '/api/v2/tasks'],
      ['POST', '/api/v1/nothing-here'],
      ['HEAD', '/v1/auth/nothing'],
    ] as const) {
      const res = await app.inject({ method, url });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.headers['content-type'], `${method} ${url}`).toMatch(/^application\/problem\+json/);
    }
  });

  it('never answers a file outside its folder', async () => {
    for (const url of ['/..%2f..%2f..%2fetc%2fpasswd', '/%2e%2e/%2e%2e/etc/passwd', '/assets/..%2f..%2fpackage.json']) {
      const res = await app.inject({ url });
      expect(res.body, url).not.toMatch(/root:|"name"/);
      expect([200, 403, 404], url).toContain(res.statusCode);
    }
  });
});

describe('a console that has not been built', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await hostWithConsole(join(mkdtempSync(join(tmpdir(), 'console-empty-')), 'dist'));
  });
  afterAll(() => app?.close());

  it('says so in plain words at / and on client routes, and the API still works', async () => {
    for (const url of ['/', '/home']) {
      const res = await app.inject({ url });
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.body).toContain('console has not been built');
      expect(res.body).toContain('npm run build');
      expectConsoleHeaders(res);
    }
    expect((await app.inject({ url: '/api/v1/auth/health' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/api/v1/nothing' })).statusCode).toBe(404);
  });
});
