export { buildService, type DeliveryDeps, type DeliveryService } from './app.js';
export { configSchema, type DeliveryConfig } from './config.js';
export { dbConfig } from './db/config.js';
export { canonicalJson } from './domain/canonical-json.js';
export { signatureHeader, verifySignature } from './domain/signature.js';
export type { Mailer, OutgoingMail } from './email/mailer.js';
export { deliveryModule } from './module.js';
