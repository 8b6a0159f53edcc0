export * from './host-env.js';
export * from './http.js';
export * from './infra.js';
export * from './route-guards.js';
export * from './service-harness.js';
export * from './smtp.js';
export * from './tokens.js';
export * from './webhook-receiver.js';
