import type { Orm, ServiceDbConfig } from '@routinely/db';
import type { EventTransport } from '@routinely/events';
import type { InternalAuth, RpcClient } from '@routinely/grpc';
import type { Clock, Logger, RevocationStore, ServiceInstance, ServiceName } from '@routinely/platform';
import type { auth_v1 } from '@routinely/proto';
import type { Redis } from 'ioredis';

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
