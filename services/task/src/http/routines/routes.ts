import { ownerOf, problemAnswers } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { MAX_OCCURRENCE_RANGE_DAYS, type Routines } from '../../domain/routines/routines.js';
import { toTaskRead } from '../../domain/task-model.js';
import { taskIdParams } from '../tasks/schemas.js';
import { occurrencesQuery, routineOccurrences } from './schemas.js';

const tags = ['tasks'];

/**
 * Routines' own reads (the series is created and edited through /tasks; capture from text is the scheduler's).
 */
export function routineRoutes(routines: Routines): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get(
      '/service/tasks/:task_id/occurrences',
      {
        config: { permission: 'SERVICE_TASK_READ' },
        schema: {
          operationId: 'listTaskOccurrences',
          description: `A routine's occurrences dated \`from\`..\`to\` (at most ${MAX_OCCURRENCE_RANGE_DAYS} days), by date. 404 unless the task is the caller's routine.`,
          tags,
          summary: "A routine's occurrences",
          params: taskIdParams,
          querystring: occurrencesQuery,
          response: {
            ...problemAnswers({ not_found: "not one of the caller's routines" }),
            200: routineOccurrences,
          },
        },
      },
      async (request) => {
        const { from, to } = request.query;
        const rows = await routines.occurrences(ownerOf(request), request.params.task_id, { from, to });
        return { series_id: request.params.task_id, items: rows.map(toTaskRead) };
      },
    );
  };
}
