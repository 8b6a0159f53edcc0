import type { ServiceDbConfig } from '@routinely/db';
import { eventEntities } from '@routinely/events';
import { deliveryEntities } from './entities.js';
import { Migration20261121090412 } from './migrations/Migration20261121090412.js';
import { Migration20261123144442 } from './migrations/Migration20261123144442.js';
import { Migration20261123150000 } from './migrations/Migration20261123150000.js';
import { Migration20261123153511 } from './migrations/Migration20261123153511.js';
import { Migration20261123154712 } from './migrations/Migration20261123154712.js';
import { Migration20261124041630 } from './migrations/Migration20261124041630.js';

export const dbConfig: ServiceDbConfig = {
  schema: 'delivery',
  entities: [...deliveryEntities, ...eventEntities],
  migrations: [
    { name: 'Migration20261121090412', class: Migration20261121090412 },
    { name: 'Migration20261123144442', class: Migration20261123144442 },
    { name: 'Migration20261123150000', class: Migration20261123150000 },
    { name: 'Migration20261123153511', class: Migration20261123153511 },
    { name: 'Migration20261123154712', class: Migration20261123154712 },
    { name: 'Migration20261124041630', class: Migration20261124041630 },
  ],
};
