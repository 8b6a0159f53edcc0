import { defineServiceModule } from '@routinely/runtime';
import { buildService } from './app.js';
import { configSchema } from './config.js';
import { dbConfig } from './db/config.js';

/** How a host (the all-in-one or this service's own main) builds the scheduler service. */
export const schedulerModule = defineServiceModule({
  name: 'scheduler',
  dbConfig,
  configSchema,
  // The task service calls the scheduler (import quotas) and starts after it; runs call task once started.
  callsLater: ['task'],
  build: buildService,
});
