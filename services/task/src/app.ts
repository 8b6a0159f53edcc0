import { databaseReady, Sql } from '@routinely/db';
import { consumerSubscriptions, OutboxRelay } from '@routinely/events';
import { backgroundOf, defineWorker, type ServiceInstance } from '@routinely/platform';
import type { ServiceDeps } from '@routinely/runtime';
import type { FastifyPluginAsync } from 'fastify';
import { DashboardPeers } from './adapters/dashboard-peers.js';
import type { TaskConfig } from './config.js';
import { AnswerCache } from './domain/answer-cache.js';
import { CalendarService } from './domain/calendar/calendar.js';
import { Capture } from './domain/capture/capture.js';
import { AdminHealth } from './domain/dashboard/admin-health.js';
import { DashboardSummaryReader } from './domain/dashboard/summary.js';
import { DependencyService } from './domain/dependencies.js';
import { CalendarFeeds } from './domain/feed/calendar-feeds.js';
import { ImportQuota } from './domain/import/import-quota.js';
import { Importer } from './domain/import/importer.js';
import { ImportJobs } from './domain/import/jobs.js';
import { Routines } from './domain/routines/routines.js';
import { TaskService } from './domain/tasks.js';
import { TaskTreeAnswers } from './domain/tree-answers.js';
import { taskConsumers } from './events/consumers.js';
import { addImportQuotaRpc } from './grpc/import-quota-rpc.js';
import { addTaskRpc } from './grpc/task-rpc.js';
import { calendarRoutes } from './http/calendar/routes.js';
import { dashboardRoutes } from './http/dashboard/routes.js';
import { dependencyRoutes } from './http/dependencies/routes.js';
import { feedRoutes } from './http/feed/routes.js';
import { importRoutes } from './http/imports/routes.js';
import { routineTaskRoutes } from './http/routine-tasks/routes.js';
import { routineRoutes } from './http/routines/routes.js';
import { taskRoutes } from './http/tasks/routes.js';
import { ImportWorker, type ImportWorkerHooks } from './workers/import-worker.js';

/** What every host gives a service (the context of @routinely/runtime), and the test doubles this root accepts. */
export type TaskServiceDeps = ServiceDeps<TaskConfig> & {
  /** Test hooks of the import worker (e.g. to stop an instance mid-job). */
  importWorkerHooks?: ImportWorkerHooks;
};

/** What the task service's routes call while answering. */
export interface TaskApi {
  tasks: TaskService;
  trees: TaskTreeAnswers;
  routines: Routines;
  capture: Capture;
  dependencies: DependencyService;
  importer: Importer;
  jobs: ImportJobs;
  calendar: CalendarService;
  feeds: CalendarFeeds;
  dashboard: DashboardSummaryReader;
  health: AdminHealth;
}

/** The task service's API routes, written after the mount (module.ts documents them with `api` never used). */
export function apiRoutes(api: TaskApi): FastifyPluginAsync {
  return async (app) => {
    await app.register(taskRoutes(api));
    await app.register(routineRoutes(api.routines));
    await app.register(dependencyRoutes(api.dependencies));
    await app.register(importRoutes(api.importer, api.jobs));
    await app.register(routineTaskRoutes(api.tasks, api.routines));
    await app.register(calendarRoutes(api.calendar));
    await app.register(feedRoutes(api.feeds));
    await app.register(dashboardRoutes(api.dashboard, api.health));
  };
}

/** Composition root of the task service; the host opens the ORM (migrations applied) and the transport. */
export function buildService(deps: TaskServiceDeps): ServiceInstance {
  const logger = deps.logger.child({ svc: 'task' });
  const db = Sql.of(deps.orm);
  const relay = new OutboxRelay({ db, transport: deps.transport, logger });
  const tasks = new TaskService(db, deps.clock, relay);
  const trees = new TaskTreeAnswers(db, new AnswerCache(deps.config.TREE_ANSWER_CACHE_BYTES));
  const dependencies = new DependencyService(db, deps.clock);
  const routines = new Routines(db, deps.clock, relay, tasks);
  const capture = new Capture(db, deps.clock);
  const feeds = new CalendarFeeds(db, deps.clock, deps.config.PUBLIC_BASE_URL);
  // Up to 50 series per pass, one transaction each; a pass that hit the limit runs again at once.
  const routineWorker = defineWorker(
    {
      name: 'routine-worker',
      pollMs: deps.config.ROUTINE_FILL_POLL_MS,
      pass: async () => ({ more: (await routines.fillDue(50)) >= 50, nextAt: null }),
    },
    { clock: deps.clock, logger },
  );
  const importQuota = new ImportQuota(deps.clock, {
    perHour: deps.config.IMPORT_QUOTA_PER_HOUR,
    perDay: deps.config.IMPORT_QUOTA_PER_DAY,
  });
  const importer = new Importer(db, deps.clock, relay, importQuota);
  const imports = new ImportWorker(db, deps.clock, deps.config, relay, deps.importWorkerHooks);
  const importWorker = defineWorker(
    { name: 'import-worker', pollMs: deps.config.IMPORT_WORKER_POLL_MS, pass: () => imports.pass() },
    { clock: deps.clock, logger },
  );
  const jobs = new ImportJobs(db, deps.clock, deps.config, importer, importWorker);
  const calendar = new CalendarService(db, deps.clock, tasks);
  const peers = new DashboardPeers(deps.grpcAddress, deps.internalAuth, deps.config.DASHBOARD_CALL_DEADLINE_MS);
  const dashboard = new DashboardSummaryReader(db, deps.clock, peers, logger);
  const health = new AdminHealth(db, peers, deps.redis, deps.config.DASHBOARD_CALL_DEADLINE_MS, deps.clock);

  return {
    name: 'task',
    routes: apiRoutes({
      tasks,
      trees,
      routines,
      capture,
      dependencies,
      importer,
      jobs,
      calendar,
      feeds,
      dashboard,
      health,
    }),
    addGrpc: (server) => {
      addTaskRpc(server, deps.internalAuth, tasks, calendar);
      addImportQuotaRpc(server, deps.internalAuth, db, importQuota);
    },
    readiness: {
      database: () => databaseReady(deps.orm),
    },
    backgroundWorkers: [importWorker, routineWorker],
    ...backgroundOf([
      { stop: () => peers.close() },
      relay,
      importWorker,
      routineWorker,
      consumerSubscriptions(Object.values(taskConsumers({ routines })), {
        db,
        transport: deps.transport,
        logger,
        clock: deps.clock,
      }),
    ]),
  };
}
