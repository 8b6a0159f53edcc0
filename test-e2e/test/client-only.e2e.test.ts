import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { aliasApiFor, targetAt } from '../src/harness.js';
import { documentedOperation, fetchUndocumented } from '../src/undocumented.js';

// Every e2e test reaches the service's operations through the generated client, so a route that
// drifts from its document breaks the build or a test. These checks keep that true without a running service.

const SOURCES = ['src', 'test'].flatMap((dir) =>
  readdirSync(new URL(`../${dir}/`, import.meta.url))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => `${dir}/${name}`),
);

const STAMP = '2026-03-02T09:00:00.000Z';
const CREATED = {
  ...{ id: crypto.randomUUID(), tenant_id: crypto.randomUUID(), user_id: crypto.randomUUID(), parent_task_id: null },
  ...{ depth: 1, sort_order: 0, title: 'Aliased', description: null, raw_input: null, status: 'pending' },
  ...{ priority: 3, duration_min: 30, deadline_at: null, earliest_start_at: null, reminder_channels: ['inapp'] },
  ...{ reminder_offset_min: 10, tags: [], chosen_slot_start: null, chosen_slot_end: null, completed_at: null },
  ...{ created_at: STAMP, updated_at: STAMP, recurrence: null, series_id: null, occurrence_date: null },
};

/** The only direct `fetch(` calls allowed, each with why it is not a call of an operation of the service. */
const RAW_FETCH_ALLOWED: Record<string, string> = {
  'src/harness.ts': "the alias-mount client's own fetch (it forwards the typed client's request to /v1)",
  'src/conformance.ts': "the typed client's transport: it sends the client's request, then checks the answer",
  'src/undocumented.ts': 'fetchUndocumented: what the document leaves out, refusing every documented operation',
  'test/unified-calendar.e2e.test.ts': "the fake calendar provider's consent page (not our service)",
  'test/calendar-write-back.e2e.test.ts': "the fake calendar provider's consent page (not our service)",
};

describe('e2e tests call the service through the generated client', () => {
  it('no e2e source calls fetch( directly outside the allow-list, and none calls the service untyped', () => {
    const offenders: string[] = [];
    for (const file of SOURCES) {
      if (file === 'test/client-only.e2e.test.ts') continue;
      const text = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
      const rawFetches = text.match(/\bfetch\(/g)?.length ?? 0;
      if (rawFetches > (file in RAW_FETCH_ALLOWED ? 1 : 0)) offenders.push(`${file}: ${rawFetches} fetch( call(s)`);
      // Untyped escapes of the client: the generic request() takes any method and path.
      if (/\.request\(/.test(text)) offenders.push(`${file}: client.request( (untyped)`);
    }
    expect(offenders).toEqual([]);
  });

  it('knows the documented operations, on either mount and with path parameters', () => {
    expect(documentedOperation('GET', '/api/v1/auth/me')).toBe('GET /api/v1/auth/me');
    expect(documentedOperation('post', '/v1/auth/login')).toBe('POST /api/v1/auth/login');
    expect(documentedOperation('GET', `/v1/service/tasks/${crypto.randomUUID()}/tree?x=1`)).toBe(
      'GET /api/v1/service/tasks/{task_id}/tree',
    );
    // Left out on purpose: the browser's SSO callback (its POST sibling is documented), probes, the document.
    expect(documentedOperation('GET', '/api/v1/auth/sso/callback?code=x')).toBeUndefined();
    expect(documentedOperation('POST', '/api/v1/auth/sso/callback')).toBe('POST /api/v1/auth/sso/callback');
    for (const path of ['/livez', '/readyz', '/.well-known/jwks.json', '/api/v1/openapi.json', '/v1/docs'])
      expect(documentedOperation('GET', path), path).toBeUndefined();
  });

  it('fetchUndocumented refuses a documented operation before sending anything', async () => {
    const nowhere = targetAt('http://127.0.0.1:9');
    await expect(fetchUndocumented(nowhere, '/v1/service/tasks', { method: 'POST' })).rejects.toThrow(
      /POST \/api\/v1\/service\/tasks of the OpenAPI document/,
    );
  });

  it('the alias-mount client sends the same typed request to /v1, body and headers included', async () => {
    const seen: { method?: string; url?: string; auth?: string; type?: string; body: string }[] = [];
    const server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        seen.push({
          method: req.method,
          url: req.url,
          auth: req.headers.authorization,
          type: req.headers['content-type'],
          body,
        });
        // A created task as the document describes it: every answer of the typed client is checked.
        res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'r1' }).end(JSON.stringify(CREATED));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const api = aliasApiFor(targetAt(`http://127.0.0.1:${port}`), 'tok');
      await api.POST('/api/v1/service/tasks', { body: { title: 'Aliased' } });
      expect(seen).toEqual([
        {
          method: 'POST',
          url: '/v1/service/tasks',
          auth: 'Bearer tok',
          type: 'application/json',
          body: '{"title":"Aliased"}',
        },
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
