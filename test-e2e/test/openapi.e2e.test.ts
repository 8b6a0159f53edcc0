import { readFileSync } from 'node:fs';
import { openApiJson, serviceForPath } from '@routinely/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalAllInOne, targetAt } from '../src/harness.js';
import { fetchUndocumented } from '../src/undocumented.js';

/** The committed document the client is generated from (packages/api-client). */
const COMMITTED = new URL('../../packages/api-client/src/gen/openapi.json', import.meta.url);
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** Routes left out of the document on purpose (contract): browser callbacks and providers' push calls. */
const UNDOCUMENTED = new Set([
  'GET /api/v1/auth/sso/callback',
  'GET /api/v1/service/integrations/oauth/callback',
  'POST /api/v1/service/integrations/google/notifications',
  'POST /api/v1/service/integrations/microsoft/notifications',
]);

/** Answers bad input as a standard fixes it (OIDC Back-Channel Logout: 400 invalid_request), not 422. */
const INVALID_AS_400 = new Set(['POST /api/v1/auth/sso/back-channel-logout']);

type Json = Record<string, unknown>;
interface Operation {
  operationId?: string;
  summary?: string;
  security?: unknown[];
  parameters?: Json[];
  requestBody?: Json;
  responses: Record<string, Json>;
}

describe('the OpenAPI document', () => {
  let local: Awaited<ReturnType<typeof startLocalAllInOne>>;
  type Document = {
    paths: Record<string, Record<string, Operation>>;
    components: Record<string, Record<string, Json>>;
  };
  let doc: Document;
  beforeAll(async () => {
    local = await startLocalAllInOne();
    // The document and its docs page are not operations of the document: plain fetches.
    doc = (await (await fetchUndocumented(targetAt(local.running.url), '/api/v1/openapi.json')).json()) as Document;
  });
  afterAll(() => local?.close());

  /** The required properties of a response schema, through its $ref. */
  const problemProperties = (schema: Json | undefined): string[] => {
    const ref = typeof schema?.$ref === 'string' ? schema.$ref.split('/').pop() : undefined;
    const target = ref ? (doc.components.schemas?.[ref] as Json | undefined) : schema;
    return (target?.required as string[] | undefined) ?? [];
  };

  const resolve = (response: Json): Json =>
    typeof response.$ref === 'string'
      ? (doc.components.responses?.[response.$ref.split('/').pop() ?? ''] as Json)
      : response;

  // `npm run generate` writes the committed document from the route definitions without starting anything; the
  // running host must serve exactly that (the same app factory, mounts and order; nothing read from its deps).
  it('is the committed one, which `npm run generate` builds without starting a server', () => {
    expect(openApiJson(doc)).toBe(readFileSync(COMMITTED, 'utf8'));
  });

  it('is served on the alias mount too, and so is the docs page', async () => {
    const target = targetAt(local.running.url);
    const alias = await fetchUndocumented(target, '/v1/openapi.json');
    expect(alias.status).toBe(200);
    expect(await alias.json()).toEqual(doc);
    const docs = await fetchUndocumented(target, '/v1/docs', { redirect: 'follow' });
    expect(docs.status).toBe(200);
    expect(docs.url).toMatch(/\/api\/v1\/docs\/?$/);
    expect(await docs.text()).toContain('<title>Routinely API</title>');
  });

  // The route table (Envoy's routes and the all-in-one's mounts) on the same instance: one all-in-one per file.
  it('assigns every path each service registers to that service in the route table (Envoy and the all-in-one cannot drift)', () => {
    const byService = local.running.app.routesByService;
    expect(Object.keys(byService).length).toBe(local.running.services.length);
    for (const [service, paths] of Object.entries(byService)) {
      expect(paths.length, service).toBeGreaterThan(0);
      for (const path of paths) expect(serviceForPath(path), `${service} ${path}`).toBe(service);
    }
  });

  it('documents every route the services register, with an operationId and its error answers', () => {
    const { app } = local.running;
    const seen: string[] = [];
    for (const [service, urls] of Object.entries(app.routesByService)) {
      for (const url of new Set(urls.filter((u) => u.startsWith('/api/v1/')))) {
        for (const method of METHODS) {
          if (!app.hasRoute({ method, url }) || UNDOCUMENTED.has(`${method} ${url}`)) continue;
          const where = `${service}: ${method} ${url}`;
          const path = url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
          const operation = doc.paths[path]?.[method.toLowerCase()];
          expect(operation, where).toBeDefined();
          if (!operation) continue;
          seen.push(where);
          expect(operation.operationId, where).toMatch(/^[a-z][A-Za-z0-9]*$/);
          expect(operation.summary, where).toBeTruthy();
          const isPublic = Array.isArray(operation.security) && operation.security.length === 0;
          const codes = Object.keys(operation.responses);
          // Public routes document a 401 only where they answer one of their own (a login's wrong password).
          if (!isPublic) expect(codes, `${where} documents 401`).toContain('401');
          if ((operation.parameters?.length || operation.requestBody) && !INVALID_AS_400.has(`${method} ${url}`)) {
            expect(codes, where).toContain('422');
          }
          if (path.includes('{')) expect(codes, where).toContain('404');
          for (const [code, raw] of Object.entries(operation.responses)) {
            const response = resolve(raw);
            expect(
              (response.headers as Json | undefined)?.['X-Request-Id'],
              `${where} ${code} X-Request-Id`,
            ).toBeDefined();
            if (Number(code) >= 400) {
              // Every error is a problem: the Problem schema, or one extending it (the back-channel logout's 400).
              const content = response.content as Record<string, Json>;
              expect(Object.keys(content), `${where} ${code}`).toEqual(['application/problem+json']);
              expect(
                problemProperties(content['application/problem+json']?.schema as Json),
                `${where} ${code}`,
              ).toEqual(expect.arrayContaining(problemProperties({ $ref: '#/components/schemas/Problem' })));
            }
            if (code === '429') expect(response.headers, where).toHaveProperty('Retry-After');
          }
        }
      }
    }
    expect(seen.length).toBeGreaterThan(100);
  });

  // One host serves every service's routes: a static path of one (POST /tasks/parse, the scheduler's) beside a
  // parametric one of another (GET /tasks/{task_id}) must still answer its own methods only.
  it('answers 405 problem+json with Allow for every documented path and each method it does not serve', async () => {
    const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}');
    const methodsOf = new Map<string, Set<string>>();
    for (const [path, operations] of Object.entries(doc.paths)) {
      const methods = methodsOf.get(shape(path)) ?? new Set<string>();
      for (const method of Object.keys(operations)) methods.add(method.toUpperCase());
      methodsOf.set(shape(path), methods);
    }
    let checked = 0;
    for (const path of Object.keys(doc.paths)) {
      const concrete = path.replace(/\{[^}]+\}/g, '0195f3a2-0000-7000-8000-000000000001');
      const route = path.replace(/\{([^}]+)\}/g, ':$1');
      // What the host serves there: the documented methods, and any it leaves out on purpose (the SSO callback's
      // browser GET).
      const documented = methodsOf.get(shape(path)) ?? new Set<string>();
      const served = METHODS.filter((m) => documented.has(m) || local.running.app.hasRoute({ method: m, url: route }));
      for (const method of METHODS.filter((m) => !served.includes(m))) {
        const res = await local.running.app.inject({ method, url: concrete });
        const where = `${method} ${path}`;
        expect(res.statusCode, `${where}: ${res.body}`).toBe(405);
        expect(res.headers['content-type'], where).toContain('application/problem+json');
        const allowed = String(res.headers.allow)
          .split(', ')
          .filter((m) => m !== 'HEAD');
        expect(allowed.sort(), where).toEqual([...served].sort());
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(300);
  });

  it('names the resources and writes the task tree as a recursive component', () => {
    const schemas = doc.components.schemas as Record<string, Json>;
    for (const name of [
      'Task',
      'TaskTree',
      'Dependency',
      'ImportJob',
      'Calendar',
      'Item',
      'Share',
      'UserProfile',
      'TokenResponse',
      'WebhookEndpoint',
      'Delivery',
      'DeadLetter',
      'Notification',
      'Problem',
    ]) {
      expect(schemas[name], name).toBeDefined();
    }
    const children = (schemas.TaskTree?.properties as Record<string, Json> | undefined)?.children;
    expect(children).toEqual({ type: 'array', items: { $ref: '#/components/schemas/TaskTree' } });
    expect(JSON.stringify(doc)).not.toContain('__SCHEMA__PLACEHOLDER__');
    expect(JSON.stringify(doc)).not.toContain(String(Number.MAX_SAFE_INTEGER));
  });
});
