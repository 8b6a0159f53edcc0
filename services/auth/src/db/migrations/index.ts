import type { ServiceDbConfig } from '@routinely/db';
import { Migration20261121090013 } from './Migration20261121090013.js';
import { Migration20261123144232 } from './Migration20261123144232.js';
import { Migration20261123144433 } from './Migration20261123144433.js';
import { Migration20261123154338 } from './Migration20261123154338.js';
import { Migration20261129210000 } from './Migration20261129210000.js';
import { Migration20261130010000 } from './Migration20261130010000.js';

export const migrations: ServiceDbConfig['migrations'] = [
  { name: 'Migration20261121090013', class: Migration20261121090013 },
  { name: 'Migration20261123144232', class: Migration20261123144232 },
  { name: 'Migration20261123144433', class: Migration20261123144433 },
  { name: 'Migration20261123154338', class: Migration20261123154338 },
  { name: 'Migration20261129210000', class: Migration20261129210000 },
  { name: 'Migration20261130010000', class: Migration20261130010000 },
];
