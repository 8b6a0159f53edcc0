import type { ServiceDbConfig } from '@routinely/db';
import { eventEntities } from '@routinely/events';
import { integrationEntities } from './entities.js';
import { Migration20261123153158 } from './migrations/Migration20261123153158.js';

export const dbConfig: ServiceDbConfig = {
  schema: 'integration',
  entities: [...integrationEntities, ...eventEntities],
  migrations: [{ name: 'Migration20261123153158', class: Migration20261123153158 }],
};
