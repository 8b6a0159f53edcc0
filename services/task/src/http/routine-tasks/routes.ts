import { answerHeaders, ownerOf, problemAnswers } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Routines } from '../../domain/routines/routines.js';
import { toTaskRead } from '../../domain/task-model.js';
import type { TaskService } from '../../domain/tasks.js';
import { moveBody, taskIdParams, taskRead } from '../tasks/schemas.js';
import { TREE_DEFAULT_LIMIT, TREE_MAX_LIMIT, treePage, treeQuery } from './schemas.js';

const tags = ['routine-tasks'];

/** The legacy aliases: a flat tree for rendering and move under another path. */
export function routineTaskRoutes(tasks: TaskService, routines: Routines): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get(
      '/service/routine-tasks/tree',
      {
        config: { permission: 'SERVICE_TASK_READ' },
        schema: {
          operationId: 'listRoutineTaskTree',
          tags,
          summary: 'The tasks of the user, depth-first by sort_order, each with its depth; paged by limit/offset',
          description:
            `At most \`limit\` tasks (default ${TREE_DEFAULT_LIMIT}, max ${TREE_MAX_LIMIT}) from \`offset\` in ` +
            'depth-first order; the X-Total-Count header gives the number of tasks.',
          querystring: treeQuery,
          response: {
            200: answerHeaders(treePage, {
              'X-Total-Count': {
                description: 'How many tasks the user has (all pages)',
                type: 'integer',
                example: 42,
              },
            }),
          },
        },
      },
      async (request, reply) => {
        const { rows, total } = await tasks.ownerTree(ownerOf(request), request.query);
        reply.header('X-Total-Count', String(total));
        return rows.map(toTaskRead);
      },
    );

    r.patch(
      '/service/routine-tasks/:task_id/parent',
      {
        config: { permission: 'SERVICE_TASK_UPDATE' },
        schema: {
          operationId: 'setRoutineTaskParent',
          tags,
          summary: 'Alias of POST /tasks/{task_id}/move',
          params: taskIdParams,
          body: moveBody,
          response: {
            ...problemAnswers({
              depth_exceeded: 'the moved subtree would nest deeper than 5 levels',
              cycle_detected: 'the new parent is the task itself or one of its descendants',
            }),
            200: taskRead,
          },
        },
      },
      async (request) =>
        toTaskRead(await routines.move(ownerOf(request), request.params.task_id, request.body.parent_task_id)),
    );
  };
}
