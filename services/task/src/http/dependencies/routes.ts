import { nameSchemas, ownerOf, problemAnswers, timestampOut } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type DependencyService, toDependencyRead } from '../../domain/dependencies.js';
import { DEP_TYPES } from '../../domain/task-model.js';
import { taskIdParams } from '../tasks/schemas.js';

const tags = ['dependencies'];

export const dependencyRead = z.object({
  id: z.uuid(),
  task_id: z.uuid(),
  depends_on_id: z.uuid(),
  dep_type: z.enum(DEP_TYPES),
  lag_min: z.number().int(),
  created_at: timestampOut(),
});

const createBody = z.object({
  task_id: z.uuid().describe('the task that waits'),
  depends_on_id: z.uuid().describe('the task it waits for'),
  dep_type: z.enum(DEP_TYPES).default('finish_to_start'),
  lag_min: z.number().int().min(-10_080).max(10_080).default(0),
});

export function dependencyRoutes(dependencies: DependencyService): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post(
      '/service/tasks/dependencies',
      {
        config: { permission: 'SERVICE_TASK_UPDATE' },
        schema: {
          operationId: 'createDependency',
          description:
            '`dep_type` defaults to `finish_to_start` and `lag_min` to 0. A self-dependency is 422; a duplicate or a cycle is 409.',
          tags,
          summary: 'Create a dependency edge',
          body: createBody,
          response: {
            ...problemAnswers({
              not_found: "either task is not one of the caller's",
              duplicate_dependency: 'this dependency exists already',
              cycle_detected: 'the dependency would close a cycle',
            }),
            201: dependencyRead,
          },
        },
      },
      async (request, reply) =>
        reply.status(201).send(toDependencyRead(await dependencies.create(ownerOf(request), request.body))),
    );

    r.delete(
      '/service/tasks/dependencies/:dep_id',
      {
        config: { permission: 'SERVICE_TASK_UPDATE' },
        schema: {
          response: { 204: z.null().describe('Deleted') },
          operationId: 'deleteDependency',
          tags,
          summary: 'Delete a dependency edge',
          params: z.object({ dep_id: z.uuid() }),
        },
      },
      async (request, reply) => {
        await dependencies.remove(ownerOf(request), request.params.dep_id);
        return reply.status(204).send(null);
      },
    );

    r.get(
      '/service/tasks/:task_id/dependencies',
      {
        config: { permission: 'SERVICE_TASK_READ' },
        schema: {
          operationId: 'listTaskDependencies',
          tags,
          summary: "A task's dependencies and dependents",
          params: taskIdParams,
          response: {
            200: z.object({
              task_id: z.uuid(),
              depends_on: z.array(dependencyRead),
              dependents: z.array(dependencyRead),
            }),
          },
        },
      },
      async (request) => dependencies.forTask(ownerOf(request), request.params.task_id),
    );
  };
}

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  Dependency: dependencyRead,
  DependencyCreate: createBody,
});
