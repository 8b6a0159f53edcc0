import { type Orm, openOrm, type ServiceDbConfig } from '@routinely/db';
import {
  allowedOriginsFrom,
  type Clock,
  ManualClock,
  type RevocationStore,
  type ServiceInstance,
  type ServiceName,
  type TokenVerifier,
} from '@routinely/platform';
import { TestTokens, type TestUser } from '@routinely/platform/testing';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Redis } from 'ioredis';
import { buildServiceHttpApp, type RegisteredRoute } from './http.js';
import { createTestDatabase, quietLogger } from './infra.js';

/**
 * The part of a runtime service module (`defineServiceModule` in @routinely/runtime) a harness needs. It is
 * structural because the runtime's own tests use this package: `C` is the module's context type.
 */
export interface HarnessModule<C extends HarnessContext, X extends object, S extends ServiceInstance> {
  name: ServiceName;
  dbConfig: ServiceDbConfig;
  build(context: C, extra?: Partial<X>): Promise<S>;
  local: { transport(): C['transport']; internalAuth(secret: string): C['internalAuth'] };
}

/** The context a host hands a module (see ServiceContext in @routinely/runtime). */
export interface HarnessContext {
  env: NodeJS.ProcessEnv;
  logger: ReturnType<typeof quietLogger>;
  clock: Clock;
  orm: Orm;
  transport: { close(): Promise<void> };
  internalAuth: unknown;
  revocations: RevocationStore;
  redis: Redis | undefined;
  grpcAddress(service: ServiceName): string;
}

export type TestDatabase = Awaited<ReturnType<typeof createTestDatabase>>;

export interface ServiceHarnessOptions<C extends HarnessContext, X extends object, S extends ServiceInstance, K> {
  /** The service's environment (its config schema parses it, defaults fill the rest). */
  env?: Record<string, string>;
  /** Extra composition-root dependencies only tests pass (hooks, doubles). */
  deps?: Partial<X>;
  /** Event transport; an in-process one (closed by the harness) when omitted. */
  transport?: C['transport'];
  clock?: K;
  /** Share another harness's database (not dropped on close): a second replica. */
  db?: TestDatabase;
  /** Signs and verifies calls between services. */
  internalSecret?: string;
  /** Where the services this one depends on answer gRPC (`grpcAddress`); asking for another one throws. */
  grpcAddresses?: Partial<Record<ServiceName, string>>;
  redis?: Redis;
  /** Revocation store of the service and its HTTP verifier; the test tokens' store when omitted. */
  revocations?: RevocationStore;
  /** The service's logger; a silent one when omitted (tests that read log lines pass their own). */
  logger?: HarnessContext['logger'];
  /** Run `service.start()` (relay, consumers, workers); default true. */
  start?: boolean;
  /** The HTTP app's token verifier; the test tokens' verifier when omitted (auth verifies its own keys). */
  verifier?: (service: S, revocations: RevocationStore) => TokenVerifier;
}

/** One built instance of the service behind its own HTTP app. */
export interface HarnessInstance<S extends ServiceInstance> {
  service: S;
  app: FastifyInstance;
  routes: RegisteredRoute[];
  close(): Promise<void>;
}

/** `app.inject` as `user` (no token when null), the path written after /api/v1. */
export type CallAs = (
  user: TestUser | null,
  method: InjectOptions['method'],
  path: string,
  payload?: unknown,
  headers?: Record<string, string>,
) => Promise<LightMyRequestResponse>;

export interface ServiceHarness<C extends HarnessContext, X extends object, S extends ServiceInstance, K>
  extends HarnessInstance<S> {
  db: TestDatabase;
  orm: Orm;
  clock: K;
  tokens: TestTokens;
  transport: C['transport'];
  internalAuth: C['internalAuth'];
  call: CallAs;
  /** Another instance on the same database and transport (a restart or a second replica), closed with the harness. */
  spawn(options?: {
    deps?: Partial<X>;
    env?: Record<string, string>;
    revocations?: RevocationStore;
    start?: boolean;
  }): Promise<HarnessInstance<S>>;
  close(): Promise<void>;
}

export const TEST_INTERNAL_SECRET = 'testkit-internal-secret-0123456789abcdef';

/**
 * A service built from its module the way a host builds it: a fresh test database with the module's
 * schema migrated, a manual clock, test tokens, an in-process transport unless one is given, and the service
 * behind the platform HTTP app on both mounts.
 */
export async function startServiceHarness<
  C extends HarnessContext,
  X extends object,
  S extends ServiceInstance,
  K extends Clock = ManualClock,
>(
  module: HarnessModule<C, X, S>,
  options: ServiceHarnessOptions<C, X, S, K> = {},
): Promise<ServiceHarness<C, X, S, K>> {
  const db = options.db ?? (await createTestDatabase());
  const closes: (() => Promise<unknown>)[] = [];
  if (!options.db) closes.push(db.drop);
  try {
    const orm = await openOrm(db.url, module.dbConfig);
    closes.unshift(() => orm.close());
    const clock = (options.clock ?? new ManualClock()) as K & Clock;
    const tokens = await TestTokens.create(clock);
    const transport = options.transport ?? module.local.transport();
    if (!options.transport) closes.unshift(() => transport.close());
    const internalAuth = module.local.internalAuth(options.internalSecret ?? TEST_INTERNAL_SECRET);
    const logger = options.logger ?? quietLogger();
    const grpcAddress = (service: ServiceName) => {
      const address = options.grpcAddresses?.[service];
      if (!address) throw new Error(`The ${module.name} harness has no gRPC address for ${service} (grpcAddresses)`);
      return address;
    };

    const instance = async (
      spec: { deps?: Partial<X>; env?: Record<string, string>; revocations?: RevocationStore; start?: boolean } = {},
    ): Promise<HarnessInstance<S>> => {
      const revocations = spec.revocations ?? options.revocations ?? tokens.revocations;
      const context: HarnessContext = {
        env: { ...options.env, ...spec.env },
        logger,
        clock,
        orm,
        transport,
        internalAuth,
        revocations,
        redis: options.redis,
        grpcAddress,
      };
      // The module's own context type is this one with its transport and internal auth types.
      const service = await module.build(context as C, { ...options.deps, ...spec.deps } as Partial<X>);
      if (spec.start ?? options.start ?? true) await service.start();
      const verifyToken = options.verifier?.(service, revocations);
      // Cookie-authenticated writes are allowed from the origins the host would allow with this environment.
      const env = { ...options.env, ...spec.env };
      const allowedOrigins = allowedOriginsFrom({
        PUBLIC_BASE_URL: env.PUBLIC_BASE_URL ?? 'http://localhost:8080',
        ALLOWED_ORIGINS: env.ALLOWED_ORIGINS ?? '',
      });
      const http = await buildServiceHttpApp(service, tokens, {
        ...(verifyToken ? { verifyToken } : {}),
        allowedOrigins,
      });
      return {
        service,
        ...http,
        close: async () => {
          await http.app.close();
          await service.stop();
        },
      };
    };

    const main = await instance();
    closes.unshift(main.close);
    const spawned: HarnessInstance<S>[] = [];
    return {
      ...main,
      db,
      orm,
      clock,
      tokens,
      transport,
      internalAuth,
      async call(user, method, path, payload, headers = {}) {
        const auth = user ? await tokens.auth(user) : {};
        return main.app.inject({
          method,
          url: `/api/v1${path}`,
          headers: { ...auth, ...headers },
          ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
        });
      },
      async spawn(spec = {}) {
        const started = await instance({ start: false, ...spec });
        spawned.push(started);
        return started;
      },
      async close() {
        for (const other of spawned.reverse()) await other.close();
        await runAll(closes);
      },
    };
  } catch (error) {
    await runAll(closes).catch(() => {});
    throw error;
  }
}

/** Runs every close even when one fails, then reports the first failure. */
async function runAll(closes: (() => Promise<unknown>)[]): Promise<void> {
  let first: unknown;
  for (const close of closes) {
    try {
      await close();
    } catch (error) {
      first ??= error;
    }
  }
  if (first) throw first;
}
