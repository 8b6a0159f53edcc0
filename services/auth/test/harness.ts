import { randomBytes } from 'node:crypto';
import { type Orm, openOrm } from '@routinely/db';
import { type EventTransport, InProcessTransport } from '@routinely/events';
import { InternalAuth } from '@routinely/grpc';
import {
  createHttpApp,
  createTokenVerifier,
  JwksCache,
  ManualClock,
  MemoryRevocationStore,
  mountApi,
  RedisRevocationStore,
  type RevocationStore,
} from '@routinely/platform';
import { createTestDatabase, createTestRedis, quietLogger, uniqueName } from '@routinely/testkit';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { type AuthConfig, type AuthServiceInstance, buildService, configSchema, dbConfig } from '../src/index.js';

export const INTERNAL_SECRET = 'test-internal-secret-0123456789abcdef';

export interface AuthHarness {
  app: FastifyInstance;
  service: AuthServiceInstance;
  orm: Orm;
  clock: ManualClock;
  config: AuthConfig;
  revocations: RevocationStore;
  sleeps: number[];
  /** A second, freshly built service on the same database (a restart), sharing nothing in memory. */
  restart(
    revocations?: RevocationStore,
  ): Promise<{ app: FastifyInstance; service: AuthServiceInstance; close(): Promise<void> }>;
  close(): Promise<void>;
}

/**
 * The auth service on a fresh database, behind the platform HTTP app whose verifier checks tokens against
 * the service's own JWKS and the same revocation store: the chain every other service runs.
 */
export async function startAuth(
  options: { redis?: boolean; env?: Record<string, string>; transport?: EventTransport } = {},
): Promise<AuthHarness> {
  const db = await createTestDatabase();
  const orm = await openOrm(db.url, dbConfig);
  const clock = new ManualClock(new Date());
  const config = configSchema.parse({ ENCRYPTION_KEY: randomBytes(32).toString('base64'), ...options.env });
  const redis = options.redis ? createTestRedis() : undefined;
  const newStore = (): RevocationStore =>
    redis
      ? new RedisRevocationStore(redis, `${uniqueName('revoked')}:`)
      : new MemoryRevocationStore(() => clock.now().getTime());
  const revocations = newStore();
  const internalAuth = new InternalAuth(INTERNAL_SECRET, 'auth');
  const transport = options.transport ?? new InProcessTransport();
  const sleeps: number[] = [];
  const logger = quietLogger();

  async function boot(store: RevocationStore) {
    const service = buildService({
      config,
      logger,
      clock,
      orm,
      transport,
      internalAuth,
      revocations: store,
      redis,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    await service.start();
    const jwks = new JwksCache(() => service.jwks());
    const verifyToken = createTokenVerifier({
      getKey: jwks.getKey,
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
      revocations: store,
      clock,
    });
    const app = await createHttpApp({ logger, verifyToken });
    await mountApi(app, service.routes, {});
    if (service.rootRoutes) await app.register(service.rootRoutes);
    await app.ready();
    return {
      app,
      service,
      close: async () => {
        await app.close();
        await service.stop();
      },
    };
  }

  const main = await boot(revocations);
  const extra: (() => Promise<void>)[] = [];
  return {
    ...main,
    orm,
    clock,
    config,
    revocations,
    sleeps,
    async restart(store) {
      const again = await boot(store ?? newStore());
      extra.push(again.close);
      return again;
    },
    async close() {
      for (const close of extra) await close();
      await main.close();
      if (!options.transport) await transport.close();
      await orm.close();
      redis?.disconnect();
      await db.drop();
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
  await orm.em.getConnection().execute('update users set is_active = false where id = ?', [userId]);
}

export async function makeSsoOnly(orm: Orm, userId: string): Promise<void> {
  await orm.em
    .getConnection()
    .execute("update users set password_hash = null, auth_method = 'sso' where id = ?", [userId]);
}
