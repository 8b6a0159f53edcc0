export * from './intervals.js';
export * from './solver.js';
export * from './solver-blocks.js';
export * from './solver-candidates.js';
export * from './solver-rules.js';
export * from './wall-time.js';
export * from './working-time.js';
