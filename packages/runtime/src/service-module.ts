import type { Orm, ServiceDbConfig } from '@routinely/db';
import type { EventTransport } from '@routinely/events';
import type { InternalAuth } from '@routinely/grpc';
import {
  type Clock,
  type Logger,
  parseConfig,
  type RevocationStore,
  type ServiceInstance,
  type ServiceName,
} from '@routinely/platform';
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
}

export interface ServiceModule {
  name: ServiceName;
  dbConfig: ServiceDbConfig;
  build(context: ServiceContext): Promise<ServiceInstance>;
}

/** What a service's `buildService` receives from a host: the shared context with its parsed config. */
export type ServiceDeps<C> = Omit<ServiceContext, 'env'> & { config: C };

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
    build: async ({ env, ...shared }) => spec.build({ ...shared, config: parseConfig(spec.configSchema, env) }),
  };
}
