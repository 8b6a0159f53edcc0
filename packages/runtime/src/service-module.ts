import type { Orm, ServiceDbConfig } from '@routinely/db';
import type { EventTransport } from '@routinely/events';
import type { InternalAuth, RpcClient } from '@routinely/grpc';
import {
  type Clock,
  type Logger,
  parseConfig,
  type RevocationStore,
  type ServiceInstance,
  type ServiceName,
} from '@routinely/platform';
import type { auth_v1 } from '@routinely/proto';
import type { Redis } from 'ioredis';
import type { z } from 'zod';

/** What the host hands each service's builder. */
export interface ServiceContext {
  env: NodeJS.ProcessEnv;
  logger: Logger;
  clock: Clock;
  orm: Orm;
  transport: EventTransport;
  internalAuth: InternalAuth;
  revocations: RevocationStore;
  redis: Redis | undefined;
  /** gRPC client of the auth service (absent while building auth itself). */
  authClient: RpcClient<typeof auth_v1.AuthServiceService> | undefined;
}

export interface ServiceModule {
  name: ServiceName;
  dbConfig: ServiceDbConfig;
  build(context: ServiceContext): Promise<ServiceInstance>;
}

/** What a service's `buildService` receives from a host: the shared context with its parsed config. */
export interface ServiceDeps<C> {
  config: C;
  logger: Logger;
  clock: Clock;
  orm: Orm;
  transport: EventTransport;
  internalAuth: InternalAuth;
  revocations: RevocationStore;
  redis: Redis | undefined;
}

/** Declares how a host builds a service: its schema, its env schema (parsed once) and its composition root. */
export function defineServiceModule<S extends z.ZodType>(spec: {
  name: ServiceName;
  dbConfig: ServiceDbConfig;
  configSchema: S;
  build: (deps: ServiceDeps<z.infer<S>>) => ServiceInstance | Promise<ServiceInstance>;
}): ServiceModule {
  return {
    name: spec.name,
    dbConfig: spec.dbConfig,
    build: async (ctx) =>
      spec.build({
        config: parseConfig(spec.configSchema, ctx.env),
        logger: ctx.logger,
        clock: ctx.clock,
        orm: ctx.orm,
        transport: ctx.transport,
        internalAuth: ctx.internalAuth,
        revocations: ctx.revocations,
        redis: ctx.redis,
      }),
  };
}
