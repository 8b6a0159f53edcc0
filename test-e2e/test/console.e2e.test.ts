import { CONSOLE_FIXTURE_MARKER, writeConsoleFixture } from '@routinely/testkit/console-fixture';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiFor, startLocalAllInOne, startTarget, type Target, targetAt } from '../src/harness.js';
import { fetchUndocumented } from '../src/undocumented.js';

// The web console at `/` of the same origin as the API (contract, "Web console"; ADR 101): through the gateway
// (the console process behind Envoy's catch-all route) and from the all-in-one's own listener. Both serve a
// console fixture laid out as Vite builds one; a deployed cluster (E2E_BASE_URL) serves the real one.

const CLIENT_ROUTES = ['/', '/home', '/calendar/week/2026-11-23', '/settings/calendars?status=active'];
const fixtureOnly = !process.env.E2E_BASE_URL;

async function expectConsolePage(target: Target, path: string) {
  const res = await fetchUndocumented(target, path);
  expect(res.status, path).toBe(200);
  expect(res.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
  expect(res.headers.get('cache-control'), path).toBe('no-cache');
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp, path).toContain("script-src 'self';");
  expect(csp, path).not.toMatch(/unsafe-inline|unsafe-eval/);
  expect(csp, path).toContain("frame-ancestors 'none'");
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('referrer-policy')).toBe('same-origin');
  const html = await res.text();
  expect(html).toMatch(/<!doctype html>/i);
  if (fixtureOnly) expect(html).toContain(CONSOLE_FIXTURE_MARKER);
  return html;
}

async function expectApiUntouched(target: Target) {
  for (const path of ['/api/v1/nothing-here', '/v1/nothing-here']) {
    const res = await fetchUndocumented(target, path);
    expect(res.status, path).toBe(404);
    expect(res.headers.get('content-type'), path).toMatch(/^application\/problem\+json/);
  }
  const health = await apiFor(target).GET('/api/v1/auth/health');
  expect(health.response.status).toBe(200);
  expect(health.response.headers.get('content-type')).toMatch(/^application\/json/);
}

describe('through the gateway', () => {
  let target: Target;
  beforeAll(async () => {
    target = await startTarget();
  });
  afterAll(() => target?.close());

  it('answers the console at / and at client routes, with its headers', async () => {
    for (const path of CLIENT_ROUTES) await expectConsolePage(target, path);
  });

  it('serves hashed assets immutable and compressed', async () => {
    const html = await expectConsolePage(target, '/');
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const res = await fetchUndocumented(target, String(script), { headers: { 'accept-encoding': 'br, gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-type')).toMatch(/^(application|text)\/javascript/);
    expect(['br', 'gzip']).toContain(res.headers.get('content-encoding'));
  });

  it('leaves /api and /v1 to the API: unknown paths stay problem+json 404', async () => {
    await expectApiUntouched(target);
  });
});

describe.skipIf(!fixtureOnly)('the all-in-one', () => {
  let local: Awaited<ReturnType<typeof startLocalAllInOne>>;
  let target: Target;
  beforeAll(async () => {
    local = await startLocalAllInOne({ CONSOLE_DIR: writeConsoleFixture().dir });
    target = targetAt(local.running.url);
  });
  afterAll(() => local?.close());

  it('answers the console at / and at client routes on its one listener, beside the API', async () => {
    for (const path of CLIENT_ROUTES) await expectConsolePage(target, path);
    await expectApiUntouched(target);
  });
});
