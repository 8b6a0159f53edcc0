import type { ServiceDbConfig } from '@routinely/db';
import { eventEntities } from '@routinely/events';
import { authEntities } from './entities.js';
import { migrations } from './migrations/index.js';

export const dbConfig: ServiceDbConfig = {
  schema: 'auth',
  entities: [...authEntities, ...eventEntities],
  migrations,
};
