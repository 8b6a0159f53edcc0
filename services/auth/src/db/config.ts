import type { ServiceDbConfig } from '@routinely/db';
import { eventEntities } from '@routinely/events';
import { authEntities } from './entities.js';
import { Migration20261121090013 } from './migrations/Migration20261121090013.js';
import { Migration20261123144232 } from './migrations/Migration20261123144232.js';
import { Migration20261123144433 } from './migrations/Migration20261123144433.js';
import { Migration20261123154338 } from './migrations/Migration20261123154338.js';

export const dbConfig: ServiceDbConfig = {
  schema: 'auth',
  entities: [...authEntities, ...eventEntities],
  migrations: [
    { name: 'Migration20261121090013', class: Migration20261121090013 },
    { name: 'Migration20261123144232', class: Migration20261123144232 },
    { name: 'Migration20261123144433', class: Migration20261123144433 },
    { name: 'Migration20261123154338', class: Migration20261123154338 },
  ],
};
