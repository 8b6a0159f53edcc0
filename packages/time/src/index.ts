// Temporal is re-exported so that services take their time types from the one time library.
export { Temporal } from 'temporal-polyfill';
export * from './date-range.js';
export * from './local-time.js';
export * from './wall-time.js';
