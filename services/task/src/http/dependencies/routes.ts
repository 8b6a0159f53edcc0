import { ownerOf, problemAnswers } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { type DependencyService, toDependencyRead } from '../../domain/dependencies.js';
import { taskIdParams } from '../tasks/schemas.js';
import {
  dependencyCreateBody,
  dependencyDeleted,
  dependencyIdParams,
  dependencyRead,
  taskDependencies,
} from './schemas.js';

const tags = ['dependencies'];

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
          body: dependencyCreateBody,
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
          response: { 204: dependencyDeleted },
          operationId: 'deleteDependency',
          tags,
          summary: 'Delete a dependency edge',
          params: dependencyIdParams,
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
            200: taskDependencies,
          },
        },
      },
      async (request) => dependencies.forTask(ownerOf(request), request.params.task_id),
    );
  };
}
