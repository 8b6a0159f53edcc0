import type { ServiceDbConfig } from '@routinely/db';
import { Migration20261123153158 } from './Migration20261123153158.js';
import { Migration20261126170649 } from './Migration20261126170649.js';
import { Migration20261126195500 } from './Migration20261126195500.js';
import { Migration20261129120000 } from './Migration20261129120000.js';
import { Migration20261129200000 } from './Migration20261129200000.js';
import { Migration20261129210000 } from './Migration20261129210000.js';
import { Migration20261130010000 } from './Migration20261130010000.js';

export const migrations: ServiceDbConfig['migrations'] = [
  { name: 'Migration20261123153158', class: Migration20261123153158 },
  { name: 'Migration20261126170649', class: Migration20261126170649 },
  { name: 'Migration20261126195500', class: Migration20261126195500 },
  { name: 'Migration20261129120000', class: Migration20261129120000 },
  { name: 'Migration20261129200000', class: Migration20261129200000 },
  { name: 'Migration20261129210000', class: Migration20261129210000 },
  { name: 'Migration20261130010000', class: Migration20261130010000 },
];
