import { ownerOf, problemAnswers } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { CaptureService } from '../../domain/capture/capture.js';
import { parseTaskTextBody, parseTaskTextResult } from './schemas.js';

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
          body: parseTaskTextBody,
          response: {
            ...problemAnswers({
              provider_unavailable: 'the provider asked for (or the effective one) is not configured on this server',
              quota_exceeded:
                "a language-model provider when today's spend reached the hard cap (builtin is never refused)",
            }),
            200: parseTaskTextResult,
          },
        },
      },
      async (request) => capture.parse(ownerOf(request), request.body.text, request.body.provider),
    );
  };
}
