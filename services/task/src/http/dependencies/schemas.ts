import { nameSchemas, timestampOut } from '@routinely/platform';
import { z } from 'zod';
import { DEP_TYPES } from '../../domain/task-model.js';

export const dependencyRead = z.object({
  id: z.uuid(),
  task_id: z.uuid(),
  depends_on_id: z.uuid(),
  dep_type: z.enum(DEP_TYPES),
  lag_min: z.number().int(),
  created_at: timestampOut(),
});

export const dependencyCreateBody = z.object({
  task_id: z.uuid().describe('the task that waits'),
  depends_on_id: z.uuid().describe('the task it waits for'),
  dep_type: z.enum(DEP_TYPES).default('finish_to_start'),
  lag_min: z.number().int().min(-10_080).max(10_080).default(0),
});

export const dependencyDeleted = z.null().describe('Deleted');
export const dependencyIdParams = z.object({ dep_id: z.uuid() });
export const taskDependencies = z.object({
  task_id: z.uuid(),
  depends_on: z.array(dependencyRead),
  dependents: z.array(dependencyRead),
});

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  Dependency: dependencyRead,
  DependencyCreate: dependencyCreateBody,
});
