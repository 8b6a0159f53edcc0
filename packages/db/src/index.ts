export { defineEntity, type InferEntity, p } from '@mikro-orm/core';
export { Migration } from '@mikro-orm/migrations';
export type { EntityManager } from '@mikro-orm/postgresql';
export * from './embedded.js';
export { withAdvisoryLock } from './lock-pool.js';
export * from './orm.js';
export { onReadPoolQuery, type ReadPoolQuery, readPoolOf, toPositional } from './read-pool.js';
export { serviceDatabaseUrl } from './service-roles.js';
export * from './sql.js';
