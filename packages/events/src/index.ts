export * from './catalog/auth.js';
export * from './catalog/calendar.js';
export * from './catalog/task.js';
export * from './envelope.js';
export * from './in-process.js';
export * from './jetstream.js';
export * from './outbox.js';
export * from './transport.js';
