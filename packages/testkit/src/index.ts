export * from './http.js';
export * from './infra.js';
export * from './tokens.js';
