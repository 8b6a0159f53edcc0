export * from './intervals.js';
export * from './wall-time.js';
export * from './working-time.js';
