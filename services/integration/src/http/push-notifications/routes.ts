import type { FastifyPluginAsync } from 'fastify';
import { acceptPush } from '../../domain/channels.js';
import type { IntegrationContext } from '../../domain/context.js';
import { countPush } from '../../domain/metrics.js';
import { graphNotifications } from './schemas.js';

const publicRoute = { auth: 'none' } as const;
const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * The providers' push receivers (Google channel notifications, Graph change notifications). Public (no token;
 * the channel secret is the credential) and left out of the API document.
 */
export function pushNotificationRoutes(ctx: IntegrationContext): FastifyPluginAsync {
  return async (app) => {
    app.post(
      '/service/integrations/google/notifications',
      { config: publicRoute, schema: { operationId: 'receiveGoogleNotification', hide: true } },
      async (request, reply) => {
        // The first message of a channel (resource state "sync") announces it; there is nothing to fetch yet.
        const announcing = first(request.headers['x-goog-resource-state']) === 'sync';
        const ok = await acceptPush(
          ctx,
          'google',
          first(request.headers['x-goog-channel-id']),
          first(request.headers['x-goog-channel-token']),
          { dryRun: announcing },
        );
        countPush('google', ok ? 'accepted' : 'rejected');
        if (!ok) return reply.status(401).send({ error: 'invalid_channel' });
        return reply.status(200).send();
      },
    );

    app.post(
      '/service/integrations/microsoft/notifications',
      { config: publicRoute, schema: { operationId: 'receiveMicrosoftNotification', hide: true } },
      async (request, reply) => {
        const token = (request.query as Record<string, string | undefined>).validationToken;
        // Graph's subscription handshake: echo the token as plain text within 10 seconds.
        if (token !== undefined) return reply.status(200).type('text/plain; charset=utf-8').send(token);
        const parsed = graphNotifications.safeParse(request.body);
        if (!parsed.success) return reply.status(400).send({ error: 'invalid_notification' });
        // Every item is checked before any is acted on: one wrong clientState and nothing changes.
        const checks = await Promise.all(
          parsed.data.value.map((n) => verifyOnly(ctx, n.subscriptionId, n.clientState)),
        );
        const accepted = checks.every(Boolean);
        countPush('microsoft', accepted ? 'accepted' : 'rejected');
        if (!accepted) return reply.status(401).send({ error: 'invalid_client_state' });
        for (const n of parsed.data.value) await acceptPush(ctx, 'microsoft', n.subscriptionId, n.clientState);
        return reply.status(202).send();
      },
    );
  };
}

async function verifyOnly(ctx: IntegrationContext, id: string, secret: string | undefined): Promise<boolean> {
  return acceptPush(ctx, 'microsoft', id, secret, { dryRun: true });
}
