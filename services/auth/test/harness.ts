import { randomBytes } from 'node:crypto';
import type { Orm } from '@routinely/db';
import type { EventTransport } from '@routinely/events';
import {
  createTokenVerifier,
  JwksCache,
  ManualClock,
  MemoryRevocationStore,
  RedisRevocationStore,
  type RevocationStore,
} from '@routinely/platform';
import { createTestRedis, type RegisteredRoute, sqlRun, startServiceHarness, uniqueName } from '@routinely/testkit';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { type AuthConfig, type AuthServiceInstance, authModule, configSchema } from '../src/index.js';

export const INTERNAL_SECRET = 'test-internal-secret-0123456789abcdef';

export interface AuthHarness {
  app: FastifyInstance;
  service: AuthServiceInstance;
  routes: RegisteredRoute[];
  orm: Orm;
  clock: ManualClock;
  config: AuthConfig;
  revocations: RevocationStore;
  sleeps: number[];
  /** A second, freshly built service on the same database (a restart), sharing nothing in memory. */
  restart(
    revocations?: RevocationStore,
    env?: Record<string, string>,
  ): Promise<{ app: FastifyInstance; service: AuthServiceInstance; close(): Promise<void> }>;
  close(): Promise<void>;
}

/**
 * The auth service from its module (the shared harness), behind the platform HTTP app whose verifier checks
 * tokens against the service's own JWKS and the same revocation store: the chain every other service runs.
 */
export async function startAuth(
  options: { redis?: boolean; env?: Record<string, string>; transport?: EventTransport } = {},
): Promise<AuthHarness> {
  const env = { ENCRYPTION_KEY: randomBytes(32).toString('base64'), ...options.env };
  const config = configSchema.parse(env);
  const clock = new ManualClock(new Date());
  const redis = options.redis ? createTestRedis() : undefined;
  const newStore = (): RevocationStore =>
    redis
      ? new RedisRevocationStore(redis, `${uniqueName('revoked')}:`)
      : new MemoryRevocationStore(() => clock.now().getTime());
  const revocations = newStore();
  const sleeps: number[] = [];
  const shared = await startServiceHarness(authModule, {
    env,
    clock,
    internalSecret: INTERNAL_SECRET,
    revocations,
    ...(redis ? { redis } : {}),
    ...(options.transport ? { transport: options.transport } : {}),
    deps: {
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    },
    verifier: (service, store) =>
      createTokenVerifier({
        getKey: new JwksCache(() => service.jwks()).getKey,
        issuer: config.JWT_ISSUER,
        audience: config.JWT_AUDIENCE,
        revocations: store,
        clock,
      }),
  }).catch((error) => {
    redis?.disconnect();
    throw error;
  });
  return {
    app: shared.app,
    service: shared.service,
    routes: shared.routes,
    orm: shared.orm,
    clock,
    config,
    revocations,
    sleeps,
    restart: (store, env) => shared.spawn({ revocations: store ?? newStore(), start: true, ...(env ? { env } : {}) }),
    async close() {
      await shared.close();
      redis?.disconnect();
    },
  };
}

let counter = 0;
export const uniqueEmail = (prefix = 'user') => `${prefix}.${Date.now().toString(36)}.${counter++}@example.test`;
export const STRONG_PASSWORD = 'correct horse battery staple';

export async function register(
  app: FastifyInstance,
  body: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<{ res: LightMyRequestResponse; access: string; refresh: string; userId: string; email: string }> {
  const email = (body.email as string | undefined) ?? uniqueEmail();
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/register',
    headers,
    payload: { email, password: STRONG_PASSWORD, ...body },
  });
  if (res.statusCode !== 201) throw new Error(`register failed: ${res.statusCode} ${res.body}`);
  const json = res.json();
  return { res, access: json.access_token, refresh: json.refresh_token, userId: json.user.id, email };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** POST /auth/login with a JSON body, from `ip` (the throttle counts per address) or inject's default. */
export function postLogin(app: FastifyInstance, body: Record<string, unknown>, ip?: string) {
  return app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: body, ...(ip ? { remoteAddress: ip } : {}) });
}

/** Account states the API cannot produce yet, set in the database: a disabled account, an SSO-only one. */
export async function disableAccount(orm: Orm, userId: string): Promise<void> {
  await sqlRun(orm, 'update users set is_active = false where id = ?', [userId]);
}

export async function makeSsoOnly(orm: Orm, userId: string): Promise<void> {
  await sqlRun(orm, "update users set password_hash = null, auth_method = 'sso' where id = ?", [userId]);
}
