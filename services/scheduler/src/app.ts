import { databaseReady, Sql, withAdvisoryLock } from '@routinely/db';
import { consumerSubscriptions, OutboxRelay, schedulerEvents } from '@routinely/events';
import { ProviderRegistry, placeWithModel } from '@routinely/llm';
import { backgroundOf, defineWorker, type ServiceInstance } from '@routinely/platform';
import type { ServiceDeps } from '@routinely/runtime';
import { expandWorkingTime } from '@routinely/scheduling';
import type { FastifyPluginAsync } from 'fastify';
import { GrpcTaskGateway } from './adapters/task-client.js';
import { TaskImportQuotas } from './adapters/task-import-quota.js';
import type { SchedulerConfig } from './config.js';
import { AdminQuotaService } from './domain/admin-quotas.js';
import { CaptureService } from './domain/capture/capture.js';
import { ConflictResolver } from './domain/conflicts.js';
import type { SchedulerContext } from './domain/context.js';
import { PlacementLock } from './domain/placement-lock.js';
import { ProviderOutcomes } from './domain/provider-outcomes.js';
import { RunModels } from './domain/runs/model-adapters.js';
import { OverrideService } from './domain/runs/overrides.js';
import { ReflowService } from './domain/runs/reflow.js';
import { RunEngine, type RunEngineHooks } from './domain/runs/run-engine.js';
import { RunService } from './domain/runs/runs.js';
import { SettingsService } from './domain/settings.js';
import { TenantSettingsService } from './domain/tenant-settings.js';
import { UsageService } from './domain/usage.js';
import { schedulerConsumers } from './events/consumers.js';
import { adminRoutes } from './http/admin/routes.js';
import { captureRoutes } from './http/capture/routes.js';
import { scheduleRoutes } from './http/schedule/routes.js';
import { settingsRoutes } from './http/settings/routes.js';
import { usageRoutes } from './http/usage/routes.js';
import { ConflictWorker } from './workers/conflict-worker.js';
import { RunWorker } from './workers/run-worker.js';

/** What every host gives a service (the context of @routinely/runtime), and the test doubles this root accepts. */
export type SchedulerServiceDeps = ServiceDeps<SchedulerConfig> & {
  /** The language-model placement of a batch; `placeWithModel` of @routinely/llm by default. */
  placeWithModel?: typeof placeWithModel;
  /** Test hooks of the run engine (a process dying between batches). */
  runHooks?: RunEngineHooks;
};

/** What the scheduler service's routes call while answering. */
export interface SchedulerApi {
  settings: SettingsService;
  usage: UsageService;
  providers: ProviderRegistry;
  adminQuotas: AdminQuotaService;
  tenant: TenantSettingsService;
  runs: RunService;
  overrides: OverrideService;
  reflow: ReflowService;
  capture: CaptureService;
}

/** The scheduler service's API routes, written after the mount (module.ts documents them with `api` never used). */
export function apiRoutes(api: SchedulerApi): FastifyPluginAsync {
  return async (app) => {
    await app.register(settingsRoutes(api.settings));
    await app.register(usageRoutes(api.usage, api.providers));
    await app.register(adminRoutes(api.adminQuotas, api.tenant));
    await app.register(scheduleRoutes(api.runs, api.overrides, api.reflow));
    await app.register(captureRoutes(api.capture));
  };
}

/** Composition root of the scheduler service: settings, tenant policy, providers, usage ledger and quotas. */
export function buildService(deps: SchedulerServiceDeps) {
  const logger = deps.logger.child({ svc: 'scheduler' });
  const db = Sql.of(deps.orm);
  const relay = new OutboxRelay({
    db,
    transport: deps.transport,
    logger,
    pollMs: deps.config.SCHEDULER_OUTBOX_POLL_MS,
  });
  const providers = new ProviderRegistry(deps.config);
  const ctx: SchedulerContext = { db, clock: deps.clock, relay, providers, config: deps.config };
  const settings = new SettingsService(ctx);
  const tenant = new TenantSettingsService(ctx);
  const importQuotas = new TaskImportQuotas(
    deps.grpcAddress('task'),
    deps.internalAuth,
    deps.config.TASK_CALL_DEADLINE_MS,
  );
  const usage = new UsageService(ctx, settings, importQuotas);
  const adminQuotas = new AdminQuotaService(ctx, importQuotas);
  const tasks = new GrpcTaskGateway(deps.grpcAddress('task'), deps.internalAuth, deps.config.TASK_CALL_DEADLINE_MS);
  const outcomes = new ProviderOutcomes(ctx);
  const placements = new PlacementLock((key, work) => withAdvisoryLock(deps.orm, key, work));
  const models = new RunModels({
    providers,
    usage,
    outcomes,
    placeWithModel: deps.placeWithModel ?? placeWithModel,
  });
  const engine = new RunEngine({
    db,
    clock: deps.clock,
    logger,
    tasks,
    expandWorkingTime,
    settingsOf: (actor) => settings.get(actor),
    now: () => deps.clock.now(),
    batchSize: deps.config.SCHEDULER_RUN_BATCH_SIZE,
    solverBatchSize: deps.config.SCHEDULER_RUN_SOLVER_BATCH_SIZE,
    leaseMs: deps.config.SCHEDULER_RUN_LEASE_MS,
    modelFor: (run) => models.forRun(run),
    kick: () => relay.kick(),
    placements,
    ...(deps.runHooks ? { hooks: deps.runHooks } : {}),
  });
  const worker = new RunWorker(
    db,
    deps.clock,
    engine,
    { leaseMs: deps.config.SCHEDULER_RUN_LEASE_MS, maxAttempts: deps.config.SCHEDULER_RUN_MAX_ATTEMPTS },
    logger,
  );
  const runWorker = defineWorker(
    { name: 'schedule-runs', pollMs: deps.config.SCHEDULER_RUN_POLL_MS, pass: () => worker.pass() },
    { clock: deps.clock, logger },
  );
  const runs = new RunService({
    clock: deps.clock,
    db,
    settings,
    usage,
    providers,
    tasks,
    engine,
    leaseMs: deps.config.SCHEDULER_RUN_LEASE_MS,
    wake: () => runWorker.wake(),
  });
  const conflicts = new ConflictWorker(
    db,
    deps.clock,
    new ConflictResolver({
      db,
      clock: deps.clock,
      tasks,
      expandWorkingTime,
      settingsOf: (actor) => settings.get(actor),
      now: () => deps.clock.now(),
      kick: () => relay.kick(),
      placements,
    }),
    { leaseMs: deps.config.SCHEDULER_RUN_LEASE_MS, maxAttempts: deps.config.SCHEDULER_RUN_MAX_ATTEMPTS },
    logger,
  );
  const conflictWorker = defineWorker(
    { name: 'schedule-conflicts', pollMs: deps.config.SCHEDULER_RUN_POLL_MS, pass: () => conflicts.pass() },
    { clock: deps.clock, logger },
  );
  const capture = new CaptureService({
    clock: deps.clock,
    providers,
    usage,
    outcomes,
    chooseProvider: (owner, requested) => runs.provider(owner, requested),
  });
  const overrides = new OverrideService({ db, clock: deps.clock, settings, tasks, placements });
  const reflow = new ReflowService(runs, tasks);

  return {
    name: 'scheduler',
    routes: apiRoutes({ settings, usage, providers, adminQuotas, tenant, runs, overrides, reflow, capture }),
    readiness: {
      database: () => databaseReady(deps.orm),
    },
    /** The domain services, for tests and the engine of the next issue. */
    domain: { settings, usage, providers, runs, outcomes },
    backgroundWorkers: [runWorker, conflictWorker],
    ...backgroundOf([
      { stop: () => tasks.close() },
      { stop: () => importQuotas.close() },
      { start: () => outcomes.announce() },
      relay,
      runWorker,
      conflictWorker,
      consumerSubscriptions(
        Object.values(
          schedulerConsumers({
            clock: deps.clock,
            runs,
            onConflictCheck: () => conflictWorker.wake(),
            onRunQueued: () => runWorker.wake(),
          }),
        ),
        {
          db,
          transport: deps.transport,
          logger,
          // The task service's health page learns of the scheduler's dead letters from this event (ADR 029).
          deadLettered: schedulerEvents.consumerDeadLettered,
          clock: deps.clock,
        },
      ),
    ]),
  } satisfies ServiceInstance & Record<string, unknown>;
}
