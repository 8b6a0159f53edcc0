import type { ServiceDbConfig } from '@routinely/db';
import { Migration20261121090412 } from './Migration20261121090412.js';
import { Migration20261123144442 } from './Migration20261123144442.js';
import { Migration20261123150000 } from './Migration20261123150000.js';
import { Migration20261123153511 } from './Migration20261123153511.js';
import { Migration20261123154712 } from './Migration20261123154712.js';
import { Migration20261124041630 } from './Migration20261124041630.js';
import { Migration20261129210000 } from './Migration20261129210000.js';
import { Migration20261130010000 } from './Migration20261130010000.js';

export const migrations: ServiceDbConfig['migrations'] = [
  { name: 'Migration20261121090412', class: Migration20261121090412 },
  { name: 'Migration20261123144442', class: Migration20261123144442 },
  { name: 'Migration20261123150000', class: Migration20261123150000 },
  { name: 'Migration20261123153511', class: Migration20261123153511 },
  { name: 'Migration20261123154712', class: Migration20261123154712 },
  { name: 'Migration20261124041630', class: Migration20261124041630 },
  { name: 'Migration20261129210000', class: Migration20261129210000 },
  { name: 'Migration20261130010000', class: Migration20261130010000 },
];
