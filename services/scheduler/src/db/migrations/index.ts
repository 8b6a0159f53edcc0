import type { ServiceDbConfig } from '@routinely/db';
import { Migration20261123153503 } from './Migration20261123153503.js';

export const migrations: ServiceDbConfig['migrations'] = [
  { name: 'Migration20261123153503', class: Migration20261123153503 },
];
