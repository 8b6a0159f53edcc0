import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTarget, type Target, targetAt } from '../src/harness.js';
import { fetchUndocumented } from '../src/undocumented.js';

// Probes, the document itself, its docs page and unknown paths are not operations of the document: plain
// fetches (fetchUndocumented refuses anything the document describes).
let target: Target;
beforeAll(async () => {
  target = await startTarget();
});
afterAll(() => target?.close());

describe('the running product', () => {
  // Probes belong to each process (the kubelet probes pods, not Envoy), so behind the gateway every service
  // process answers them on its own listener and the gateway routes no service's (the console process, which
  // answers `/`, answers its own there); a deployed cluster's are helm test's.
  it.skipIf(!!process.env.E2E_BASE_URL)('answers liveness and readiness', async () => {
    const processes = inject('distributedProcessUrls').map(targetAt);
    for (const probed of processes.length > 0 ? processes : [target]) {
      expect((await fetchUndocumented(probed, '/livez')).status).toBe(200);
      const ready = await fetchUndocumented(probed, '/readyz');
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { status: string }).status).toBe('ok');
    }
    // Through the gateway, `/livez` is whatever serves `/`: the console process's own, never a service's.
    if (processes.length > 0) {
      const viaGateway = await fetchUndocumented(target, '/readyz');
      expect(((await viaGateway.json()) as { checks: object }).checks).toEqual({});
    }
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
