import type { ServiceDbConfig } from '@routinely/db';
import { eventEntities } from '@routinely/events';
import { calendarEntities } from './entities.js';
import { Migration20261121085939 } from './migrations/Migration20261121085939.js';
import { Migration20261123144436 } from './migrations/Migration20261123144436.js';

export const dbConfig: ServiceDbConfig = {
  schema: 'calendar',
  entities: [...calendarEntities, ...eventEntities],
  migrations: [
    { name: 'Migration20261121085939', class: Migration20261121085939 },
    { name: 'Migration20261123144436', class: Migration20261123144436 },
  ],
};
