import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTarget, type Target } from '../src/harness.js';
import { fetchUndocumented } from '../src/undocumented.js';

// Probes, the document itself, its docs page and unknown paths are not operations of the document: plain
// fetches (fetchUndocumented refuses anything the document describes).
let target: Target;
beforeAll(async () => {
  target = await startTarget();
});
afterAll(() => target?.close());

describe('the running product', () => {
  it('answers liveness and readiness', async () => {
    expect((await fetchUndocumented(target, '/livez')).status).toBe(200);
    const ready = await fetchUndocumented(target, '/readyz');
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { status: string }).status).toBe('ok');
  });

  it('serves one OpenAPI 3.1 document of canonical routes and a docs page', async () => {
    const res = await fetchUndocumented(target, '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; info: unknown; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Routinely', version: '1.0.0' });
    const paths = Object.keys(doc.paths);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.every((p) => p.startsWith('/api/v1/'))).toBe(true);
    const docs = await fetchUndocumented(target, '/api/v1/docs');
    expect([200, 302]).toContain(docs.status);
  });

  it('answers unknown paths with a problem document', async () => {
    const res = await fetchUndocumented(target, '/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await res.json()).toMatchObject({ status: 404, code: 'not_found' });
  });
});
