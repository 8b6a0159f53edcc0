import { databaseReady, type Orm } from '@routinely/db';
import { type EventTransport, OutboxRelay, type Subscription } from '@routinely/events';
import type { InternalAuth, Server } from '@routinely/grpc';
import type { Clock, Logger, ServiceInstance } from '@routinely/platform';
import { expandWorkingTime } from '@routinely/scheduling';
import type { SchedulerConfig } from './config.js';
import { AdminQuotaService } from './domain/admin-quotas.js';
import type { SchedulerContext } from './domain/context.js';
import { ProviderOutcomes } from './domain/provider-outcomes.js';
import { ProviderRegistry } from './domain/providers.js';
import { SettingsService } from './domain/settings.js';
import { TenantSettingsService } from './domain/tenant-settings.js';
import { UsageService } from './domain/usage.js';
import type { ExpandWorkingTime } from './domain/working-time.js';
import { subscribeConsumers } from './events/consumers.js';
import { addSchedulerRpc } from './grpc/scheduler-rpc.js';
import { addStatusRpc } from './grpc/status-rpc.js';
import { adminRoutes } from './http/admin/routes.js';
import { settingsRoutes } from './http/settings/routes.js';
import { usageRoutes } from './http/usage/routes.js';

export interface SchedulerServiceDeps {
  config: SchedulerConfig;
  logger: Logger;
  clock: Clock;
  /** Opened with `openOrm(url, dbConfig)`, migrations applied. */
  orm: Orm;
  transport: EventTransport;
  /** Verifies the service tokens of gRPC callers. */
  internalAuth: InternalAuth;
  /** Working-time expansion for GetSettings' intervals; `expandWorkingTime` of @routinely/scheduling by default. */
  expandWorkingTime?: ExpandWorkingTime;
}

/** Composition root of the scheduler service: settings, tenant policy, providers, usage ledger and quotas. */
export function buildService(deps: SchedulerServiceDeps) {
  const logger = deps.logger.child({ svc: 'scheduler' });
  const relay = new OutboxRelay({
    orm: deps.orm,
    transport: deps.transport,
    logger,
    pollMs: deps.config.SCHEDULER_OUTBOX_POLL_MS,
  });
  const providers = new ProviderRegistry(deps.config);
  const ctx: SchedulerContext = { orm: deps.orm, clock: deps.clock, relay, providers, config: deps.config };
  const settings = new SettingsService(ctx);
  const tenant = new TenantSettingsService(ctx);
  const usage = new UsageService(ctx, settings);
  const adminQuotas = new AdminQuotaService(ctx);
  const outcomes = new ProviderOutcomes(deps.clock);
  let subscriptions: Subscription[] = [];

  return {
    name: 'scheduler',
    routes: async (app) => {
      await app.register(settingsRoutes(settings));
      await app.register(usageRoutes(usage, providers));
      await app.register(adminRoutes(adminQuotas, tenant));
    },
    addGrpc: (server) => {
      addSchedulerRpc(server as Server, deps.internalAuth, {
        settings,
        usage,
        expandWorkingTime: deps.expandWorkingTime ?? expandWorkingTime,
      });
      addStatusRpc(server as Server, deps.internalAuth, { ctx, usage, outcomes });
    },
    readiness: {
      database: () => databaseReady(deps.orm),
    },
    /** The domain services, for tests and the engine of the next issue. */
    domain: { settings, usage, providers, outcomes },
    start: async () => {
      relay.start();
      subscriptions = await subscribeConsumers({ orm: deps.orm, transport: deps.transport, logger, clock: deps.clock });
    },
    stop: async () => {
      for (const s of subscriptions) await s.stop();
      subscriptions = [];
      await relay.stop();
    },
  } satisfies ServiceInstance & Record<string, unknown>;
}
