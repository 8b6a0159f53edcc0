import { defineServiceModule } from '@routinely/runtime';
import { buildService } from './app.js';
import { configSchema } from './config.js';
import { dbConfig } from './db/config.js';

/** How a host (the all-in-one or this service's own main) builds the task service. */
export const taskModule = defineServiceModule({
  name: 'task',
  dbConfig,
  configSchema,
  // Bulk-import limits are the scheduler's (ConsumeImportQuota at import time); the dashboard and the admin
  // health page read the scheduler's, delivery's and integration's figures (ADR 025, 026).
  dependsOn: ['scheduler', 'delivery', 'integration'],
  build: buildService,
});
