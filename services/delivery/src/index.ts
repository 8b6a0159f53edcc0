export { buildService, type DeliveryDeps, type DeliveryService } from './app.js';
export { configSchema, type DeliveryConfig } from './config.js';
export { dbConfig } from './db/config.js';
export { deliveryModule } from './module.js';
