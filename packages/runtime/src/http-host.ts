import {
  allowedOriginsFrom,
  type Clock,
  createHttpApp,
  createTokenVerifier,
  IpRateLimiter,
  JwksCache,
  type Logger,
  mountApi,
  type PlatformConfig,
  type RevocationStore,
  registerHealth,
  registerMetricsRoute,
  type ServiceInstance,
} from '@routinely/platform';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { JSONWebKeySet } from 'jose';
import { registerConsole } from './console.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Paths each hosted service registered, by service name. */
    routesByService: Record<string, string[]>;
  }
}

export interface HttpHostOptions {
  config: PlatformConfig;
  /** Prefix of this host's Redis keys (INFRA_NAMESPACE), shared with the revocation store's. */
  redisNamespace?: string;
  logger: Logger;
  clock: Clock;
  services: ServiceInstance[];
  /** Where the auth service's public keys come from (gRPC in every mode). */
  fetchJwks: () => Promise<JSONWebKeySet>;
  revocations: RevocationStore;
  redis?: Redis | undefined;
  /** True once the host is shutting down: /readyz answers 503 from then on. */
  draining?: () => boolean;
  /** Serve /metrics (default true). */
  metrics?: boolean;
  /** Serve the web console from this folder at `/` (the all-in-one; ADR 101). */
  consoleDir?: string;
}

/**
 * One HTTP listener for the given services: each one's routes under both mounts, its root routes, the
 * shared authentication (JWKS from the auth service, revocations checked on every request), the per-IP limit,
 * and /livez, /readyz covering every service.
 */
export async function buildHttpHost(options: HttpHostOptions): Promise<FastifyInstance> {
  const jwks = new JwksCache(options.fetchJwks);
  const verifyToken = createTokenVerifier({
    getKey: jwks.getKey,
    issuer: options.config.JWT_ISSUER,
    audience: options.config.JWT_AUDIENCE,
    revocations: options.revocations,
    clock: options.clock,
  });
  const app = await createHttpApp({
    logger: options.logger,
    verifyToken,
    trustProxy: options.config.TRUST_PROXY,
    allowedOrigins: allowedOriginsFrom(options.config),
    rateLimiter: new IpRateLimiter(
      {
        perMinute: options.config.RATE_LIMIT_PER_MINUTE,
        perHour: options.config.RATE_LIMIT_PER_HOUR,
        burst: options.config.RATE_LIMIT_BURST,
      },
      options.redis,
      options.redisNamespace,
    ),
  });
  const readiness: Record<string, () => Promise<void>> = {};
  // Which service registered which path: the route-table drift test reads it.
  const routesByService: Record<string, string[]> = {};
  let mounting: string | undefined;
  app.addHook('onRoute', (route) => {
    if (!mounting) return;
    routesByService[mounting] = [...(routesByService[mounting] ?? []), route.url];
  });
  for (const service of options.services) {
    mounting = service.name;
    await mountApi(app, service.routes, {});
    if (service.rootRoutes) await app.register(service.rootRoutes);
    mounting = undefined;
    for (const [name, check] of Object.entries(service.readiness)) readiness[`${service.name}.${name}`] = check;
  }
  const { draining } = options;
  if (draining) {
    // While draining, each answer closes its connection: a load balancer keeps no idle keep-alive connection to
    // this process, so none is closed under it at the moment it sends a request there (a reset it cannot safely
    // retry) when the listener closes.
    app.addHook('onSend', async (_request, reply, payload) => {
      if (draining()) reply.header('connection', 'close');
      return payload;
    });
  }
  registerHealth(app, readiness, draining ? { draining } : {});
  if (options.metrics !== false) registerMetricsRoute(app);
  if (options.consoleDir !== undefined) await registerConsole(app, { dir: options.consoleDir });
  app.decorate('routesByService', routesByService);
  return app;
}
