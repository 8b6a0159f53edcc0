import { ownerOf } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { toTaskRead } from '../../domain/task-model.js';
import type { TaskService } from '../../domain/tasks.js';
import { moveBody, taskIdParams, taskRead } from '../tasks/schemas.js';

const tags = ['routine-tasks'];

/** The legacy aliases: a flat tree for rendering and move under another path. */
export function routineTaskRoutes(tasks: TaskService): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get(
      '/service/routine-tasks/tree',
      {
        config: { permission: 'SERVICE_TASK_READ' },
        schema: {
          tags,
          summary: 'Every task of the user, depth-first by sort_order, each with its depth',
          response: { 200: z.array(taskRead) },
        },
      },
      async (request) => (await tasks.ownerTree(ownerOf(request))).map(toTaskRead),
    );

    r.patch(
      '/service/routine-tasks/:task_id/parent',
      {
        config: { permission: 'SERVICE_TASK_UPDATE' },
        schema: {
          tags,
          summary: 'Alias of POST /tasks/{task_id}/move',
          params: taskIdParams,
          body: moveBody,
          response: { 200: taskRead },
        },
      },
      async (request) =>
        toTaskRead(await tasks.move(ownerOf(request), request.params.task_id, request.body.parent_task_id)),
    );
  };
}
