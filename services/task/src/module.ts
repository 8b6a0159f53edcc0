import { defineServiceModule } from '@routinely/runtime';
import { apiRoutes, buildService } from './app.js';
import { configSchema } from './config.js';
import { dbConfig } from './db/config.js';

/** How a host (the all-in-one or this service's own main) builds the task service. */
export const taskModule = defineServiceModule({
  name: 'task',
  dbConfig,
  configSchema,
  // The dashboard and the admin health page read delivery's and integration's figures (ADR 025, 026); the
  // scheduler calls this service and never the other way (its figures come as events, ADR 056).
  dependsOn: ['delivery', 'integration'],
  build: buildService,
  routes: apiRoutes,
});
