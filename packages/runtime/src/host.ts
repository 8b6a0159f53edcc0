import { resolve } from 'node:path';
import { assertPinnedToSchema, lockDataFolder, type Orm, openOrm, serviceDatabaseUrl } from '@routinely/db';
import {
  createRpcClient,
  createRpcServer,
  InternalAuth,
  type Server,
  startRpcServer,
  stopRpcServer,
} from '@routinely/grpc';
import {
  type Clock,
  type Logger,
  observeWorkers,
  parseConfig,
  type ServiceInstance,
  systemClock,
} from '@routinely/platform';
import { auth_v1 } from '@routinely/proto';
import type { FastifyInstance } from 'fastify';
import { consoleConfigSchema, DEFAULT_CONSOLE_DIR } from './console.js';
import { hostConfigSchema } from './host-config.js';
import { buildHttpHost } from './http-host.js';
import { type Infrastructure, startInfrastructure } from './infrastructure.js';
import { checkNoPendingMigrations } from './migrate.js';
import { loadSecrets, type RuntimeSecrets } from './secrets.js';
import { observeServiceDatabase } from './service-metrics.js';
import type { ServiceContext, ServiceModule } from './service-module.js';
import { checkStartOrder, GrpcAddressBook } from './wiring.js';

export interface RunningHost {
  app: FastifyInstance;
  /** Base URL of the listener, e.g. http://127.0.0.1:8080 */
  url: string;
  services: ServiceInstance[];
  close(): Promise<void>;
}

/**
 * Runs the given services in this process: infrastructure (embedded or real), each service on its own
 * schema with its own gRPC server, one HTTP listener for both mounts that opens only when all are ready.
 * The all-in-one passes all six modules; a standalone service main passes its own.
 */
export async function startHost(options: {
  modules: readonly ServiceModule[];
  env: NodeJS.ProcessEnv;
  logger: Logger;
  clock?: Clock;
  /** Serve the web console at `/` too (the all-in-one; CONSOLE_DIR says from where). */
  console?: boolean;
}): Promise<RunningHost> {
  const config = parseConfig(hostConfigSchema, options.env);
  const consoleDir = options.console
    ? (parseConfig(consoleConfigSchema, options.env).CONSOLE_DIR ?? DEFAULT_CONSOLE_DIR)
    : undefined;
  // Wiring mistakes fail before any infrastructure starts.
  checkStartOrder(options.modules);
  const addresses = new GrpcAddressBook(options.env);
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  const dataDir = resolve(config.DATA_DIR);
  // The embedded default owns its data folder: a second start on it refuses before it reads or writes anything.
  const dataLock = config.DATABASE_URL ? undefined : lockDataFolder(dataDir);
  let infra: Infrastructure;
  let secrets: RuntimeSecrets;
  try {
    // Without DATABASE_URL (embedded default) missing secrets are generated once and kept beside the data.
    secrets = loadSecrets(options.env, config.DATABASE_URL ? undefined : dataDir);
    infra = await startInfrastructure({
      logger,
      databaseUrl: config.DATABASE_URL,
      natsUrl: config.NATS_URL,
      redisUrl: config.REDIS_URL,
      dataDir,
      embeddedPostgresPort: config.EMBEDDED_PG_PORT,
      namespace: config.INFRA_NAMESPACE,
    });
  } catch (error) {
    dataLock?.release();
    throw error;
  }
  logger.info(infra.describe, 'infrastructure ready');
  const env = {
    ...options.env,
    ENCRYPTION_KEY: secrets.encryptionKey,
    INTERNAL_AUTH_SECRET: secrets.internalAuthSecret,
  };
  const orms: Orm[] = [];
  const servers: Server[] = [];
  const started: ServiceInstance[] = [];
  let gatewayAuth: { close(): void } | undefined;
  const unobserve: (() => void)[] = [];
  let draining = false;
  try {
    for (const module of options.modules) {
      const serviceUrl = await serviceDatabaseUrl(
        infra.databaseUrl,
        module.dbConfig.schema,
        secrets.internalAuthSecret,
        logger,
      );
      const orm = await openOrm(serviceUrl, module.dbConfig, { migrate: config.MIGRATE_ON_START });
      orms.push(orm);
      await assertPinnedToSchema(orm);
      if (!config.MIGRATE_ON_START) await checkNoPendingMigrations(module.name, orm);
      unobserve.push(observeServiceDatabase(module.name, orm, clock));
      const internalAuth = new InternalAuth(secrets.internalAuthSecret, module.name);
      const context: ServiceContext = {
        env,
        logger: logger.child({ svc: module.name }),
        clock,
        orm,
        transport: infra.transport,
        internalAuth,
        revocations: infra.revocations,
        redis: infra.redis,
        grpcAddress: addresses.resolverFor(module),
      };
      const service = await module.build(context);
      if (service.addGrpc) {
        const server = createRpcServer(context.logger);
        service.addGrpc(server);
        addresses.record(module.name, await startRpcServer(server, config.GRPC_HOST, config.GRPC_PORT));
        servers.push(server);
      }
      started.push(service);
    }
    const jwksClient = createRpcClient(
      auth_v1.AuthServiceService,
      addresses.address('auth'),
      new InternalAuth(secrets.internalAuthSecret, 'gateway'),
    );
    gatewayAuth = jwksClient;
    const app = await buildHttpHost({
      config,
      logger,
      clock,
      services: started,
      fetchJwks: async () => JSON.parse((await jwksClient.getJwks({})).jwksJson),
      revocations: infra.revocations,
      redis: infra.redis,
      redisNamespace: config.INFRA_NAMESPACE,
      draining: () => draining,
      metrics: config.METRICS_ENABLED,
      ...(consoleDir !== undefined ? { consoleDir } : {}),
    });
    for (const service of started) await service.start();
    for (const service of started) unobserve.push(observeWorkers(service.name, service.backgroundWorkers ?? []));
    await app.listen({ port: config.PORT, host: config.HOST });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    const url = `http://127.0.0.1:${port}`;
    logger.info({ url, services: started.map((s) => s.name) }, 'Routinely is listening');
    return {
      app,
      url,
      services: started,
      close: async () => {
        // Readiness fails first so the load balancer stops routing here while requests in flight finish.
        draining = true;
        if (config.SHUTDOWN_DRAIN_MS > 0) {
          logger.info({ drainMs: config.SHUTDOWN_DRAIN_MS }, 'draining: /readyz answers 503');
          await new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_DRAIN_MS));
        }
        await app.close();
        await shutdown();
      },
    };
  } catch (error) {
    await shutdown();
    throw error;
  }

  async function shutdown() {
    for (const remove of unobserve) remove();
    for (const service of [...started].reverse()) await service.stop().catch((e) => logger.warn({ err: e }, 'stop'));
    gatewayAuth?.close();
    for (const server of servers) await stopRpcServer(server);
    for (const orm of orms) await orm.close().catch(() => {});
    await infra.stop();
    dataLock?.release();
  }
}
