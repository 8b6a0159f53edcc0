import type { ServiceDbConfig } from '@routinely/db';
import { eventEntities } from '@routinely/events';
import { taskEntities } from './entities.js';
import { migrations } from './migrations/index.js';

export const dbConfig: ServiceDbConfig = {
  schema: 'task',
  entities: [...taskEntities, ...eventEntities],
  migrations,
};
