export { type AuthServiceDeps, type AuthServiceInstance, buildService } from './app.js';
export { type AuthConfig, configSchema } from './config.js';
export { dbConfig } from './db/config.js';
export { authModule } from './module.js';
