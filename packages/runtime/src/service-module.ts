import type { Orm, ServiceDbConfig } from '@routinely/db';
import { type EventTransport, InProcessTransport } from '@routinely/events';
import { InternalAuth } from '@routinely/grpc';
import {
  type Clock,
  type Logger,
  parseConfig,
  type RevocationStore,
  type ServiceInstance,
  type ServiceName,
} from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { Redis } from 'ioredis';
import type { z } from 'zod';
import { neverUsed } from './never-used.js';

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
  /**
   * Where a service this one declared in `dependsOn` answers gRPC: where this host started it, else
   * `<SVC>_GRPC_ADDRESS`, else `routinely-<svc>:50051`.
   */
  grpcAddress(service: ServiceName): string;
}

/**
 * How a host builds one service. `X` is what the service's composition root accepts beyond the context
 * (test doubles such as a user directory or worker hooks), which only test harnesses pass.
 */
export interface ServiceModule<X extends object = object, S extends ServiceInstance = ServiceInstance> {
  name: ServiceName;
  dbConfig: ServiceDbConfig;
  /**
   * Services this one calls over gRPC: started earlier in the same process, or configured. Calls go one way:
   * no service depends, directly or through others, on one that depends on it (ADR 056).
   */
  dependsOn: readonly ServiceName[];
  build(context: ServiceContext, extra?: Partial<X>): Promise<S>;
  /**
   * The service's API routes (written after the mount) over dependencies that throw when used: registering
   * them reads and connects nothing, so `npm run generate` builds the OpenAPI document from them (ADR 070).
   */
  documentedRoutes(): FastifyPluginAsync;
  /** The in-process stand-ins a host without infrastructure uses (test harnesses). */
  local: { transport(): EventTransport; internalAuth(secret: string): InternalAuth };
}

/** What a service's `buildService` receives from a host: the shared context with its parsed config. */
export type ServiceDeps<C> = Omit<ServiceContext, 'env'> & { config: C };

/**
 * Declares how a host builds a service: its schema, its env schema (parsed once), its composition root, and the
 * function that registers its API routes given what the root built for them (the root calls it too).
 */
export function defineServiceModule<C extends z.ZodType, D extends object, S extends ServiceInstance, R extends object>(
  spec: {
    name: ServiceName;
    dbConfig: ServiceDbConfig;
    configSchema: C;
    dependsOn?: readonly ServiceName[];
    build: (deps: D) => S | Promise<S>;
    routes: (deps: R) => FastifyPluginAsync;
    // The composition root may ask only for what a host provides (anything else must be optional).
  } & (ServiceDeps<z.infer<C>> extends D ? unknown : { build: never }),
): ServiceModule<D, S> {
  return {
    name: spec.name,
    dbConfig: spec.dbConfig,
    dependsOn: spec.dependsOn ?? [],
    build: async ({ env, ...shared }, extra) =>
      spec.build({ ...shared, config: parseConfig(spec.configSchema, env), ...extra } as ServiceDeps<z.infer<C>> &
        Partial<D> as D),
    documentedRoutes: () => spec.routes(neverUsed<R>(`the ${spec.name} service's route dependencies`)),
    local: {
      transport: () => new InProcessTransport(),
      internalAuth: (secret) => new InternalAuth(secret, spec.name),
    },
  };
}
