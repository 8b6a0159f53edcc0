export { buildService, type TaskServiceDeps } from './app.js';
export { configSchema, type TaskConfig } from './config.js';
export { dbConfig } from './db/config.js';
export { taskModule } from './module.js';
