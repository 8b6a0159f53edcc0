export * from './compose.js';
export * from './config.js';
