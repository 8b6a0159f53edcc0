import { startAllInOne } from '@routinely/all-in-one';
import { type ApiClient, createApiClient } from '@routinely/api-client';
import { startTopology } from '@routinely/distributed';
import { createTestDatabase, quietLogger, testHostEnv, uniqueName } from '@routinely/testkit';
import { inject } from 'vitest';
import { conformingFetch } from './conformance.js';

export interface Target {
  baseUrl: string;
  close(): Promise<void>;
}

/** A running instance this test did not start (a child process, a deployment): nothing to close. */
export const targetAt = (baseUrl: string): Target => ({ baseUrl, close: async () => {} });

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

/**
 * The six service processes behind the envoy.yaml-driven gateway on a fresh database, JetStream namespace and
 * Redis key space, with settings of this test's own (what the shared topology of the global setup cannot take).
 */
export async function startLocalDistributed(env: Record<string, string> = {}) {
  const db = await createTestDatabase();
  const topology = await startTopology({
    env: {
      ...testHostEnv(db.url, uniqueName('e2e')),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      SHUTDOWN_DRAIN_MS: '0',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      ...env,
    },
    output: 'buffer',
  });
  return {
    url: topology.gateway.url,
    close: async () => {
      await topology.close();
      await db.drop();
    },
  };
}

/**
 * The product under test: E2E_BASE_URL when set (a deployed cluster), else the six service processes behind
 * the envoy.yaml-driven gateway that the global setup started once for the run. A test that needs settings of
 * its own (`env`) gets its own all-in-one instead, as one topology serves every file.
 */
export async function startTarget(env: Record<string, string> = {}): Promise<Target> {
  if (process.env.E2E_BASE_URL) return targetAt(process.env.E2E_BASE_URL);
  const distributed = inject('distributedUrl');
  if (distributed && Object.keys(env).length === 0) return targetAt(distributed);
  const local = await startLocalAllInOne(env);
  return { baseUrl: local.running.url, close: local.close };
}

/**
 * The typed client generated from the OpenAPI document, against the target: calls that drift from the
 * document (paths, parameters, bodies, answers) do not compile. Redirects are not followed, so a 302 and its
 * Location are what a test reads. What the document leaves out on purpose goes through `fetchUndocumented`.
 * Every answer is checked against the document (conformance.ts): one it does not describe fails the test.
 */
export function apiFor(target: Target, token?: string): ApiClient {
  return createApiClient({
    baseUrl: target.baseUrl,
    ...(token ? { token } : {}),
    redirect: 'manual',
    fetch: conformingFetch(),
  });
}

/** Sends what the client built for /api/v1/... to the /v1/... alias mount instead. */
function onAliasMount(request: Request): Promise<Response> {
  const url = new URL(request.url);
  url.pathname = url.pathname.replace(/^\/api\/v1\//, '/v1/');
  return fetch(new Request(url, request));
}

/**
 * The same typed client on the /v1 alias mount. The document describes /api/v1 only; /v1 serves the same
 * operations, so the alias is driven by the same typed calls (and a drift breaks both the same way).
 */
export function aliasApiFor(target: Target, token?: string): ApiClient {
  return createApiClient({
    baseUrl: target.baseUrl,
    ...(token ? { token } : {}),
    redirect: 'manual',
    fetch: conformingFetch(onAliasMount),
  });
}

/**
 * A request body the document does not allow, sent on purpose (unknown field, wrong type) to check the
 * service refuses it. Typed `never` so it fits any operation's body; the call stays typed otherwise.
 */
export const invalidBody = (body: unknown): never => body as never;
