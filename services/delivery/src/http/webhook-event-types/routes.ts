import type { Permission } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { EVENT_CATALOG } from '../../domain/event-types.js';
import { eventTypeList } from './schemas.js';

const READ: Permission[] = ['SERVICE_WEBHOOK_READ', 'SERVICE_WEBHOOK_MANAGE'];
const tags = ['webhooks'];

/** Built once: the catalog is fixed for the life of the process. */
const eventTypes = EVENT_CATALOG.map((t) => ({
  name: t.name,
  description: t.description,
  schema: z.toJSONSchema(t.envelope) as Record<string, unknown>,
}));

/** What a receiver can expect: the event catalog. */
export function webhookEventTypeRoutes(): FastifyPluginAsync {
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
          response: { 200: eventTypeList },
        },
      },
      async () => eventTypes,
    );
  };
}
