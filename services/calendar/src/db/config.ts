import type { ServiceDbConfig } from '@routinely/db';
import { eventEntities } from '@routinely/events';
import { calendarEntities } from './entities.js';
import { migrations } from './migrations/index.js';

export const dbConfig: ServiceDbConfig = {
  schema: 'calendar',
  entities: [...calendarEntities, ...eventEntities],
  migrations,
};
