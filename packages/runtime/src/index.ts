export * from './http-host.js';
export * from './infrastructure.js';
export * from './secrets.js';
