import { defineServiceModule } from '@routinely/runtime';
import { apiRoutes, buildService } from './app.js';
import { configSchema } from './config.js';
import { dbConfig } from './db/config.js';

/** How a host (the all-in-one or this service's own main) builds the scheduler service. */
export const schedulerModule = defineServiceModule({
  name: 'scheduler',
  dbConfig,
  configSchema,
  // Runs, overrides and the quota routes call the task service, which never calls back (ADR 056).
  dependsOn: ['task'],
  build: buildService,
  routes: apiRoutes,
});
