import type { ServiceDbConfig } from '@routinely/db';

import { Migration20261121090008 } from './Migration20261121090008.js';

export const migrations: ServiceDbConfig['migrations'] = [
  { name: 'Migration20261121090008', class: Migration20261121090008 },
];
