import type { ServiceDbConfig } from '@routinely/db';
import { Migration20261123153503 } from './Migration20261123153503.js';
import { Migration20261124041427 } from './Migration20261124041427.js';
import { Migration20261124042044 } from './Migration20261124042044.js';
import { Migration20261124054500 } from './Migration20261124054500.js';
import { Migration20261126172413 } from './Migration20261126172413.js';
import { Migration20261126180000 } from './Migration20261126180000.js';
import { Migration20261126231348 } from './Migration20261126231348.js';
import { Migration20261129100000 } from './Migration20261129100000.js';
import { Migration20261129101800 } from './Migration20261129101800.js';
import { Migration20261129210000 } from './Migration20261129210000.js';
import { Migration20261129220000 } from './Migration20261129220000.js';
import { Migration20261130010000 } from './Migration20261130010000.js';
import { Migration20261130050000 } from './Migration20261130050000.js';

export const migrations: ServiceDbConfig['migrations'] = [
  { name: 'Migration20261123153503', class: Migration20261123153503 },
  { name: 'Migration20261124041427', class: Migration20261124041427 },
  { name: 'Migration20261124042044', class: Migration20261124042044 },
  { name: 'Migration20261124054500', class: Migration20261124054500 },
  { name: 'Migration20261126172413', class: Migration20261126172413 },
  { name: 'Migration20261126180000', class: Migration20261126180000 },
  { name: 'Migration20261126231348', class: Migration20261126231348 },
  { name: 'Migration20261129100000', class: Migration20261129100000 },
  { name: 'Migration20261129101800', class: Migration20261129101800 },
  { name: 'Migration20261129210000', class: Migration20261129210000 },
  { name: 'Migration20261129220000', class: Migration20261129220000 },
  { name: 'Migration20261130010000', class: Migration20261130010000 },
  { name: 'Migration20261130050000', class: Migration20261130050000 },
];
