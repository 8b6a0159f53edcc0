import type { ServiceDbConfig } from '@routinely/db';
import { eventEntities } from '@routinely/events';
import { schedulerEntities } from './entities.js';
import { migrations } from './migrations/index.js';

export const dbConfig: ServiceDbConfig = {
  schema: 'scheduler',
  entities: [...schedulerEntities, ...eventEntities],
  migrations,
};
