export { buildService, type SchedulerServiceDeps } from './app.js';
export { configSchema, type SchedulerConfig } from './config.js';
export { dbConfig } from './db/config.js';
export { schedulerModule } from './module.js';
