import type { ServiceDbConfig } from '@routinely/db';
import { Migration20261121085939 } from './Migration20261121085939.js';
import { Migration20261123144436 } from './Migration20261123144436.js';
import { Migration20261129210000 } from './Migration20261129210000.js';
import { Migration20261130010000 } from './Migration20261130010000.js';

export const migrations: ServiceDbConfig['migrations'] = [
  { name: 'Migration20261121085939', class: Migration20261121085939 },
  { name: 'Migration20261123144436', class: Migration20261123144436 },
  { name: 'Migration20261129210000', class: Migration20261129210000 },
  { name: 'Migration20261130010000', class: Migration20261130010000 },
];
