import type { FastifyPluginAsync } from 'fastify';
import type { IntegrationContext } from '../../domain/context.js';
import { finishConnection } from '../../domain/integrations.js';

const publicRoute = { auth: 'none' } as const;

/**
 * The browser's return from the provider's consent page. Public (no token; the single-use state is the
 * credential) and left out of the API document.
 */
export function oauthCallbackRoutes(ctx: IntegrationContext): FastifyPluginAsync {
  return async (app) => {
    app.get(
      '/service/integrations/oauth/callback',
      { config: publicRoute, schema: { operationId: 'completeIntegrationOauth', hide: true } },
      async (request, reply) => {
        const query = request.query as Record<string, string | undefined>;
        const result = await finishConnection(ctx, { code: query.code, state: query.state, error: query.error });
        reply.header('cache-control', 'no-store');
        if (!result.ok) {
          return reply
            .status(400)
            .send({ error: 'invalid_state', error_description: 'Unknown, used or expired authorization state' });
        }
        return reply.redirect(result.location, 302);
      },
    );
  };
}
