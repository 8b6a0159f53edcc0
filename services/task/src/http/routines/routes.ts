import { ownerOf, problemAnswers } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Capture } from '../../domain/capture/capture.js';
import { MAX_OCCURRENCE_RANGE_DAYS, type Routines } from '../../domain/routines/routines.js';
import { toTaskRead } from '../../domain/task-model.js';
import { taskIdParams, taskRead } from '../tasks/schemas.js';

const tags = ['tasks'];

const occurrencesQuery = z.object({
  from: z.iso.date().optional().describe("first local date (default: 30 days before today in the user's timezone)"),
  to: z.iso
    .date()
    .optional()
    .describe(
      `last local date, inclusive (default: 90 days after from; at most ${MAX_OCCURRENCE_RANGE_DAYS} after it)`,
    ),
});

const parseBody = z.object({
  text: z
    .string()
    .min(1)
    .max(2000)
    .meta({ examples: ['Gym every Monday and Thursday 7am for 1h #health p2'] }),
  provider: z.string().min(1).max(32).optional().describe('only `builtin` reads the text today'),
});

const parsedFields = z.object({
  title: z.string().optional(),
  duration_min: z.number().int().optional(),
  priority: z.number().int().optional(),
  deadline_at: z.string().optional(),
  earliest_start_at: z.string().optional(),
  tags: z.array(z.string()).optional(),
  recurrence: z
    .object({
      rule: z.string(),
      window: z.object({ start: z.string(), end: z.string() }).optional(),
      starts_on: z.string().optional(),
    })
    .optional(),
});

/** Routines' own reads and capture from text (the series is created and edited through /tasks). */
export function routineRoutes(routines: Routines, capture: Capture): FastifyPluginAsync {
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
            200: z.object({ series_id: z.uuid(), items: z.array(taskRead) }),
          },
        },
      },
      async (request) => {
        const { from, to } = request.query;
        const rows = await routines.occurrences(ownerOf(request), request.params.task_id, { from, to });
        return { series_id: request.params.task_id, items: rows.map(toTaskRead) };
      },
    );

    r.post(
      '/service/tasks/parse',
      {
        config: { permission: 'SERVICE_TASK_CREATE' },
        schema: {
          operationId: 'parseTaskText',
          description:
            "What a line of English says about a task, read by the builtin parser in the caller's timezone: title, duration, priority, tags, dates and a recurrence. Nothing is created.",
          tags,
          summary: 'Capture from text (nothing is created)',
          body: parseBody,
          response: {
            200: z.object({
              fields: parsedFields,
              provider: z.string(),
              model: z.string().nullable(),
              cost_usd: z.number(),
            }),
          },
        },
      },
      async (request) => capture.parse(ownerOf(request), request.body.text),
    );
  };
}
