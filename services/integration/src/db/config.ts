import type { ServiceDbConfig } from '@routinely/db';
import { eventEntities } from '@routinely/events';
import { integrationEntities } from './entities.js';
import { migrations } from './migrations/index.js';

export const dbConfig: ServiceDbConfig = {
  schema: 'integration',
  entities: [...integrationEntities, ...eventEntities],
  migrations,
};
