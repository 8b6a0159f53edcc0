import type { Permission } from '@routinely/platform';
import { ownerOf, pageOf, pageQuery } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { attemptsOfEndpoint } from '../../domain/attempt-log.js';
import type { DeliveryContext } from '../../domain/context.js';
import { endpointParams } from '../webhooks/schemas.js';
import { endpointAttempt, toEndpointAttempt } from './schemas.js';

const READ: Permission[] = ['SERVICE_WEBHOOK_READ', 'SERVICE_WEBHOOK_MANAGE'];
const tags = ['webhooks'];

/** What was sent to an endpoint: its attempts log. */
export function webhookAttemptRoutes(ctx: DeliveryContext): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

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
        const page = await attemptsOfEndpoint(ctx, ownerOf(request), request.params.endpoint_id, {
          limit,
          offset,
        });
        return { items: page.items.map(toEndpointAttempt), total: page.total, limit, offset };
      },
    );
  };
}
