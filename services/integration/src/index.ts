export { buildService, type IntegrationService, type IntegrationServiceDeps } from './app.js';
export { configSchema, type IntegrationConfig } from './config.js';
export { dbConfig } from './db/config.js';
export { integrationModule } from './module.js';
