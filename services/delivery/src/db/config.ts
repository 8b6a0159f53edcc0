import type { ServiceDbConfig } from '@routinely/db';
import { eventEntities } from '@routinely/events';
import { deliveryEntities } from './entities.js';
import { migrations } from './migrations/index.js';

export const dbConfig: ServiceDbConfig = {
  schema: 'delivery',
  entities: [...deliveryEntities, ...eventEntities],
  migrations,
};
