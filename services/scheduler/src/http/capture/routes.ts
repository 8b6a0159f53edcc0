import { ownerOf, problemAnswers } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CaptureService } from '../../domain/capture/capture.js';
import { PROVIDER_NAMES } from '../../domain/providers.js';

const parseBody = z.object({
  text: z
    .string()
    .min(1)
    .max(2000)
    .meta({ examples: ['Gym every Monday and Thursday 7am for 1h #health p2'] }),
  provider: z
    .enum(PROVIDER_NAMES)
    .optional()
    .describe("who reads the text (default: the caller's effective provider, as for a run)"),
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

/** Capture from text: served by the scheduler, which owns the providers and the spend quota (ADR 062). */
export function captureRoutes(capture: CaptureService): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post(
      '/service/tasks/parse',
      {
        config: { permission: 'SERVICE_TASK_CREATE' },
        schema: {
          operationId: 'parseTaskText',
          description:
            "What a line of English says about a task: title, duration, priority, tags, dates and a recurrence, relative to now in the caller's settings timezone. Nothing is created. The builtin parser costs nothing; a model provider makes one call under the spend quota, recorded in the usage ledger like a run's. An answer of the model that does not fit (or no answer) gives the builtin parser's fields with `provider: \"builtin\"`; `cost_usd` is what the request spent either way.",
          tags: ['tasks'],
          summary: 'Capture from text (nothing is created)',
          body: parseBody,
          response: {
            ...problemAnswers({
              provider_unavailable: 'the provider asked for (or the effective one) is not configured on this server',
              quota_exceeded:
                "a language-model provider when today's spend reached the hard cap (builtin is never refused)",
            }),
            200: z.object({
              fields: parsedFields,
              provider: z.enum(PROVIDER_NAMES),
              model: z.string().nullable(),
              cost_usd: z.number().describe('USD this request spent, rounded to 6 decimals'),
            }),
          },
        },
      },
      async (request) => capture.parse(ownerOf(request), request.body.text, request.body.provider),
    );
  };
}
