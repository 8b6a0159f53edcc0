export * from './host.js';
export * from './host-config.js';
export * from './http-host.js';
export * from './infrastructure.js';
export * from './main-loop.js';
export * from './secrets.js';
export * from './service-module.js';
export * from './service-roles.js';
