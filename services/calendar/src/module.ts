import { defineServiceModule } from '@routinely/runtime';
import { apiRoutes, buildService } from './app.js';
import { configSchema } from './config.js';
import { dbConfig } from './db/config.js';

/** How a host (the all-in-one or this service's own main) builds the calendar service. */
export const calendarModule = defineServiceModule({
  name: 'calendar',
  dbConfig,
  configSchema,
  // User look-ups for sharing.
  dependsOn: ['auth'],
  build: buildService,
  routes: apiRoutes,
});
