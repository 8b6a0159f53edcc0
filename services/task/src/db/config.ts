import type { ServiceDbConfig } from '@routinely/db';
import { eventEntities } from '@routinely/events';
import { taskEntities } from './entities.js';
import { migrations } from './migrations/index.js';

/** The schema the task service owns; statements that must never depend on a connection's search_path name it. */
export const TASK_SCHEMA = 'task';

export const dbConfig: ServiceDbConfig = {
  schema: TASK_SCHEMA,
  entities: [...taskEntities, ...eventEntities],
  migrations,
};
