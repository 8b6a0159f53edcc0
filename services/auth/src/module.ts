import { defineServiceModule } from '@routinely/runtime';
import { apiRoutes, buildService } from './app.js';
import { configSchema } from './config.js';
import { dbConfig } from './db/config.js';

/** How a host (the all-in-one or this service's own main) builds the auth service. */
export const authModule = defineServiceModule({
  name: 'auth',
  dbConfig,
  configSchema,
  build: buildService,
  routes: apiRoutes,
});
