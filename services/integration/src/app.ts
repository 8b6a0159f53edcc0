import { databaseReady, LivenessLock, Sql } from '@routinely/db';
import { consumerSubscriptions, OutboxRelay } from '@routinely/events';
import { backgroundOf, defineWorker, SecretBox, type ServiceInstance } from '@routinely/platform';
import type { ServiceDeps } from '@routinely/runtime';
import type { FastifyPluginAsync } from 'fastify';
import { GoogleAdapter } from './adapters/google.js';
import { MicrosoftAdapter } from './adapters/microsoft.js';
import type { IntegrationConfig } from './config.js';
import type { IntegrationContext } from './domain/context.js';
import { observePendingWrites } from './domain/metrics.js';
import { SyncLeases } from './domain/sync-leases.js';
import { writeBackPass } from './domain/write-back-mirror.js';
import { integrationConsumers } from './events/consumers.js';
import { addIntegrationRpc } from './grpc/integration-rpc.js';
import { integrationRoutes } from './http/integrations/routes.js';
import { oauthCallbackRoutes } from './http/oauth-callback/routes.js';
import { pushNotificationRoutes } from './http/push-notifications/routes.js';
import { channelPass, syncPass } from './workers/sync-worker.js';

/** What every host gives a service (the context of @routinely/runtime). */
export type IntegrationServiceDeps = ServiceDeps<IntegrationConfig>;

export interface IntegrationService extends ServiceInstance {
  /** Direct handles on the worker passes, for tests with a manual clock and hosts that drive them by hand. */
  workers: {
    syncDue(): Promise<number>;
    renewChannels(): Promise<number>;
    /** One calendar write-back pass: answers how many task events it wrote. */
    writeBack(): Promise<number>;
  };
  relay: OutboxRelay;
}

/** The integration service's API routes, written after the mount (module.ts documents them with `ctx` never used). */
export function apiRoutes(ctx: IntegrationContext): FastifyPluginAsync {
  return async (app) => {
    await app.register(integrationRoutes(ctx));
    await app.register(oauthCallbackRoutes(ctx));
    await app.register(pushNotificationRoutes(ctx));
  };
}

/** Composition root of the integration service: provider connections, their sync and push channels. */
export function buildService(deps: IntegrationServiceDeps): IntegrationService {
  const { config, clock, orm } = deps;
  const db = Sql.of(orm);
  const logger = deps.logger.child({ svc: 'integration' });
  const http = {
    clock,
    timeoutMs: config.INTEGRATION_PROVIDER_TIMEOUT_MS,
    maxInlineRetryMs: config.INTEGRATION_MAX_INLINE_RETRY_MS,
  };
  const relay = new OutboxRelay({
    db,
    transport: deps.transport,
    logger,
    pollMs: config.INTEGRATION_OUTBOX_POLL_MS,
  });
  const pollMs = config.INTEGRATION_POLL_INTERVAL_S * 1000;
  // Each worker's heartbeat tells the admin health page a stopped worker from a working one (ADR 026).
  const syncWorker = defineWorker({ name: 'sync', pollMs, pass: () => syncPass(ctx) }, { clock, logger });
  const channelWorker = defineWorker({ name: 'channels', pollMs, pass: () => channelPass(ctx) }, { clock, logger });
  const writeBackWorker = defineWorker(
    { name: 'write-back', pollMs: config.INTEGRATION_WRITE_BACK_POLL_MS, pass: () => writeBackPass(ctx) },
    { clock, logger },
  );
  const ctx: IntegrationContext = {
    db,
    clock,
    logger,
    box: new SecretBox(config.ENCRYPTION_KEY),
    relay,
    config,
    adapters: { google: new GoogleAdapter(config, http), microsoft: new MicrosoftAdapter(config, http) },
    leases: new SyncLeases(db, (key) => new LivenessLock(orm, key), clock, config.INTEGRATION_SYNC_LEASE_MS, logger),
    wakeSync: () => syncWorker.wake(),
    wakeWriteBack: () => writeBackWorker.wake(),
  };
  const workers = [syncWorker, channelWorker, writeBackWorker];

  let stopObserving = () => {};
  const pendingWritesGauge = {
    start: () => {
      stopObserving = observePendingWrites(db);
    },
    stop: () => stopObserving(),
  };

  return {
    name: 'integration',
    routes: apiRoutes(ctx),
    relay,
    addGrpc: (server) => addIntegrationRpc(server, deps.internalAuth, { db, clock, workers }),
    readiness: {
      database: () => databaseReady(orm),
    },
    workers: {
      syncDue: async () => (await syncPass(ctx)).synced,
      renewChannels: async () => (await channelPass(ctx)).renewed,
      writeBack: async () => (await writeBackPass(ctx)).written,
    },
    backgroundWorkers: workers,
    ...backgroundOf([
      relay,
      ctx.leases,
      consumerSubscriptions(Object.values(integrationConsumers({ clock, wakeWriteBack: ctx.wakeWriteBack })), {
        db,
        transport: deps.transport,
        logger,
        clock,
      }),
      pendingWritesGauge,
      ...(config.INTEGRATION_WORKERS_ENABLED ? workers : []),
    ]),
  };
}
