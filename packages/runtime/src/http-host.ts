import {
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
  type ServiceInstance,
} from '@routinely/platform';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { JSONWebKeySet } from 'jose';

export interface HttpHostOptions {
  config: PlatformConfig;
  logger: Logger;
  clock: Clock;
  services: ServiceInstance[];
  /** Where the auth service's public keys come from (gRPC in every mode). */
  fetchJwks: () => Promise<JSONWebKeySet>;
  revocations: RevocationStore;
  redis?: Redis | undefined;
  extraReadiness?: Record<string, () => Promise<void>>;
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
    rateLimiter: new IpRateLimiter(
      {
        perMinute: options.config.RATE_LIMIT_PER_MINUTE,
        perHour: options.config.RATE_LIMIT_PER_HOUR,
        burst: options.config.RATE_LIMIT_BURST,
      },
      options.redis,
    ),
  });
  const readiness: Record<string, () => Promise<void>> = { ...options.extraReadiness };
  for (const service of options.services) {
    await mountApi(app, service.routes, {});
    if (service.rootRoutes) await app.register(service.rootRoutes);
    for (const [name, check] of Object.entries(service.readiness)) readiness[`${service.name}.${name}`] = check;
  }
  registerHealth(app, readiness);
  return app;
}
