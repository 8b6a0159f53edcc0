import type { ServiceDbConfig } from '@routinely/db';
import { eventEntities } from '@routinely/events';
import { integrationEntities } from './entities.js';
import { Migration20261123153158 } from './migrations/Migration20261123153158.js';
import { Migration20261126170649 } from './migrations/Migration20261126170649.js';
import { Migration20261126195500 } from './migrations/Migration20261126195500.js';
import { Migration20261129120000 } from './migrations/Migration20261129120000.js';
import { Migration20261129200000 } from './migrations/Migration20261129200000.js';

export const dbConfig: ServiceDbConfig = {
  schema: 'integration',
  entities: [...integrationEntities, ...eventEntities],
  migrations: [
    { name: 'Migration20261123153158', class: Migration20261123153158 },
    { name: 'Migration20261126170649', class: Migration20261126170649 },
    { name: 'Migration20261126195500', class: Migration20261126195500 },
    { name: 'Migration20261129120000', class: Migration20261129120000 },
    { name: 'Migration20261129200000', class: Migration20261129200000 },
  ],
};
