import type { Permission } from '@routinely/platform';
import { ownerOf, pageOf, pageQuery } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { attemptsOfEndpoint } from '../../domain/attempt-log.js';
import { EVENT_CATALOG } from '../../domain/event-types.js';
import { em, type RouteContext } from '../context.js';
import { endpointAttempt, eventTypeRead, toEndpointAttempt } from './attempt-schemas.js';
import { endpointParams } from './schemas.js';

const READ: Permission[] = ['SERVICE_WEBHOOK_READ', 'SERVICE_WEBHOOK_MANAGE'];
const tags = ['webhooks'];

/** Built once: the catalog is fixed for the life of the process. */
const eventTypes = EVENT_CATALOG.map((t) => ({
  name: t.name,
  description: t.description,
  schema: z.toJSONSchema(t.envelope) as Record<string, unknown>,
}));

/** What a receiver can expect (the event catalog) and what was sent to an endpoint (its attempts log). */
export function webhookHistoryRoutes(ctx: RouteContext): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get(
      '/service/webhooks/event-types',
      {
        config: { permission: READ },
        schema: {
          tags,
          operationId: 'listWebhookEventTypes',
          summary: 'List the event types sent to webhooks, with the JSON Schema of each envelope',
          response: { 200: z.array(eventTypeRead) },
        },
      },
      async () => eventTypes,
    );

    r.get(
      '/service/webhooks/:endpoint_id/attempts',
      {
        config: { permission: READ },
        schema: {
          tags,
          operationId: 'listWebhookEndpointAttempts',
          summary: 'List the tries made to a webhook endpoint, test sends included, newest first',
          params: endpointParams,
          querystring: pageQuery,
          response: { 200: pageOf(endpointAttempt) },
        },
      },
      async (request) => {
        const { limit, offset } = request.query;
        const page = await attemptsOfEndpoint(em(ctx), ownerOf(request), request.params.endpoint_id, {
          limit,
          offset,
        });
        return { items: page.items.map(toEndpointAttempt), total: page.total, limit, offset };
      },
    );
  };
}
