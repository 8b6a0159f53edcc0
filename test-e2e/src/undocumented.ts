import { readFileSync } from 'node:fs';
import type { Target } from './harness.js';

/** The committed document the client is generated from (packages/api-client). */
const DOCUMENT = new URL('../../packages/api-client/src/gen/openapi.json', import.meta.url);

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
}

function documentedOperations(): Operation[] {
  const doc = JSON.parse(readFileSync(DOCUMENT, 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths).flatMap(([template, methods]) =>
    Object.keys(methods).map((method) => ({
      method: method.toUpperCase(),
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    })),
  );
}

let operations: Operation[] | undefined;

/** The document's operation a request would be (the /v1 alias mount counts as /api/v1), if any. */
export function documentedOperation(method: string, path: string): string | undefined {
  operations ??= documentedOperations();
  const pathname = new URL(path, 'http://any').pathname.replace(/^\/v1\//, '/api/v1/');
  const upper = method.toUpperCase();
  const found = operations.find((op) => op.method === upper && op.pattern.test(pathname));
  return found && `${found.method} ${found.template}`;
}

/**
 * A plain fetch against the service, for what the OpenAPI document leaves out on purpose: probes (/livez,
 * /readyz), the JWKS, the document and docs page themselves, browser callbacks (SSO, calendar OAuth) and
 * unknown paths. It refuses any request the document describes, so every operation is reached through the
 * generated client and a route that drifts from its document breaks the build or a test. Redirects are not
 * followed unless `init.redirect` says so.
 */
export async function fetchUndocumented(target: Target, path: string, init: RequestInit = {}): Promise<Response> {
  const method = init.method ?? 'GET';
  const operation = documentedOperation(method, path);
  if (operation) throw new Error(`${method} ${path} is ${operation} of the OpenAPI document: call it with apiFor`);
  return fetch(`${target.baseUrl}${path}`, { redirect: 'manual', ...init });
}
