import type { ServiceDbConfig } from '@routinely/db';
import { Migration20261121090008 } from './Migration20261121090008.js';
import { Migration20261121091755 } from './Migration20261121091755.js';
import { Migration20261123144439 } from './Migration20261123144439.js';
import { Migration20261123153248 } from './Migration20261123153248.js';
import { Migration20261123153341 } from './Migration20261123153341.js';
import { Migration20261125170241 } from './Migration20261125170241.js';
import { Migration20261126194947 } from './Migration20261126194947.js';
import { Migration20261126230956 } from './Migration20261126230956.js';
import { Migration20261129100512 } from './Migration20261129100512.js';
import { Migration20261129210000 } from './Migration20261129210000.js';
import { Migration20261130010000 } from './Migration20261130010000.js';

export const migrations: ServiceDbConfig['migrations'] = [
  { name: 'Migration20261121090008', class: Migration20261121090008 },
  { name: 'Migration20261121091755', class: Migration20261121091755 },
  { name: 'Migration20261123144439', class: Migration20261123144439 },
  { name: 'Migration20261123153248', class: Migration20261123153248 },
  { name: 'Migration20261123153341', class: Migration20261123153341 },
  { name: 'Migration20261125170241', class: Migration20261125170241 },
  { name: 'Migration20261126194947', class: Migration20261126194947 },
  { name: 'Migration20261126230956', class: Migration20261126230956 },
  { name: 'Migration20261129100512', class: Migration20261129100512 },
  { name: 'Migration20261129210000', class: Migration20261129210000 },
  { name: 'Migration20261130010000', class: Migration20261130010000 },
];
