import {
  API_MOUNTS,
  type AuthMode,
  createHttpApp,
  mountApi,
  type Permission,
  type ServiceInstance,
  type TokenVerifier,
} from '@routinely/platform';
import type { TestTokens } from '@routinely/platform/testing';
import type { FastifyInstance } from 'fastify';
import { quietLogger } from './infra.js';

/** One route a service registered, as written after the mount, with what the platform guards read. */
export interface RegisteredRoute {
  method: string;
  /** e.g. `/service/tasks/:task_id` */
  path: string;
  auth: AuthMode;
  permissions: readonly Permission[];
  /** Which parts of the request the route's schema validates. */
  validates: { body: boolean; params: boolean; querystring: boolean; headers: boolean };
  /** In the OpenAPI document (not `hide`): its query string is strict (ADR 071). */
  documented: boolean;
}

export interface TestHttpApp {
  app: FastifyInstance;
  /** Every route the service registered under /api/v1 (each method once; HEAD copies left out). */
  routes: RegisteredRoute[];
}

/**
 * The HTTP side of one service as the hosts serve it (both mounts, the platform's auth, errors and
 * schemas), verifying tokens minted by `tokens` unless another verifier is given (the auth service checks
 * its own keys). Tests drive it with `app.inject`.
 */
export async function buildTestHttpApp(
  service: ServiceInstance,
  tokens: TestTokens,
  options: { verifyToken?: TokenVerifier } = {},
): Promise<FastifyInstance> {
  return (await buildServiceHttpApp(service, tokens, options)).app;
}

/** `buildTestHttpApp` that also answers the routes the service registered (the route-guard table reads them). */
export async function buildServiceHttpApp(
  service: ServiceInstance,
  tokens: TestTokens,
  options: { verifyToken?: TokenVerifier; allowedOrigins?: readonly string[] } = {},
): Promise<TestHttpApp> {
  const app = await createHttpApp({
    logger: quietLogger(),
    verifyToken: options.verifyToken ?? tokens.verifier(),
    allowedOrigins: options.allowedOrigins ?? [],
  });
  const routes: RegisteredRoute[] = [];
  const mount = `${API_MOUNTS[0]}/`;
  let mounting = true;
  app.addHook('onRoute', (route) => {
    if (!mounting || !route.url.startsWith(mount)) return;
    const schema = (route.schema ?? {}) as Record<string, unknown>;
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      routes.push({
        method,
        path: route.url.slice(API_MOUNTS[0].length),
        auth: route.config?.auth ?? 'required',
        permissions: route.config?.permission ? [route.config.permission].flat() : [],
        validates: {
          body: Boolean(schema.body),
          params: Boolean(schema.params),
          querystring: Boolean(schema.querystring),
          headers: Boolean(schema.headers),
        },
        documented: !schema.hide,
      });
    }
  });
  await mountApi(app, service.routes, {});
  mounting = false;
  if (service.rootRoutes) await app.register(service.rootRoutes);
  await app.ready();
  return { app, routes };
}
