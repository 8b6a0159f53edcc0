import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTarget, type Target } from '../src/harness.js';

let target: Target;
beforeAll(async () => {
  target = await startTarget();
});
afterAll(() => target?.close());

describe('the running product', () => {
  it('answers liveness and readiness', async () => {
    expect((await call(target, 'GET', '/livez')).status).toBe(200);
    const ready = await call(target, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json.status).toBe('ok');
  });

  it('serves one OpenAPI 3.1 document of canonical routes and a docs page', async () => {
    const doc = await call(target, 'GET', '/api/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.json.openapi).toBe('3.1.0');
    expect(doc.json.info).toMatchObject({ title: 'Routinely', version: '1.0.0' });
    const paths = Object.keys(doc.json.paths);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.every((p) => p.startsWith('/api/v1/'))).toBe(true);
    const docs = await call(target, 'GET', '/api/v1/docs');
    expect([200, 302]).toContain(docs.status);
  });

  it('answers unknown paths with a problem document', async () => {
    const res = await call(target, 'GET', '/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.json).toMatchObject({ status: 404, code: 'not_found' });
  });
});
