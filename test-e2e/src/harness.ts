import { startAllInOne } from '@routinely/all-in-one';
import { type ApiClient, createApiClient } from '@routinely/api-client';
import { createTestDatabase, quietLogger, testHostEnv, uniqueName } from '@routinely/testkit';

export interface Target {
  baseUrl: string;
  close(): Promise<void>;
}

/** The all-in-one started in this test process on a fresh database, JetStream namespace and Redis key space. */
export async function startLocalAllInOne(env: Record<string, string> = {}) {
  const db = await createTestDatabase();
  const running = await startAllInOne({
    env: {
      ...process.env,
      ...testHostEnv(db.url, uniqueName('e2e')),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      ...env,
    },
    logger: quietLogger(),
  });
  return {
    running,
    close: async () => {
      await running.close();
      await db.drop();
    },
  };
}

/** The product under test: E2E_BASE_URL when set (a deployed cluster), else the local all-in-one. */
export async function startTarget(env: Record<string, string> = {}): Promise<Target> {
  if (process.env.E2E_BASE_URL) return { baseUrl: process.env.E2E_BASE_URL, close: async () => {} };
  const local = await startLocalAllInOne(env);
  return { baseUrl: local.running.url, close: local.close };
}

export interface CallResult {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: response JSON is read loosely here and asserted by each test's expectations
  json: any;
  text: string;
}

/** fetch against the target, JSON in and out. */
export async function call(
  target: Target,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${target.baseUrl}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    redirect: 'manual',
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: see CallResult.json
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/**
 * The typed client generated from the OpenAPI document, against the target: calls that drift from the
 * document (paths, parameters, bodies, answers) do not compile. Raw `call` stays for what the document does
 * not describe on purpose (the /v1 alias mount, malformed requests).
 */
export function apiFor(target: Target, token?: string): ApiClient {
  return createApiClient({ baseUrl: target.baseUrl, ...(token ? { token } : {}), redirect: 'manual' });
}
