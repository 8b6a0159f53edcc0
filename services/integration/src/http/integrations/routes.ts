import { ownerOf, type Permission, problemAnswers } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { IntegrationContext } from '../../domain/context.js';
import {
  DEFAULT_CONNECTION_RETURN_URL,
  disconnect,
  findOwned,
  listIntegrations,
  reconnect,
  startConnection,
} from '../../domain/integrations.js';
import { integrationView } from '../../domain/snapshots.js';
import { syncOnRequest } from '../../domain/sync.js';
import { configureWriteBack } from '../../domain/write-back.js';
import {
  authorizationAnswer,
  integrationDisconnected,
  integrationList,
  integrationParams,
  integrationPatch,
  integrationRead,
  providerParams,
  reconnectBody,
  returnUrlBody,
  syncCounts,
} from './schemas.js';

const MANAGE: Permission = 'SERVICE_INTEGRATION_MANAGE';
const tags = ['integrations'];
const config = { permission: MANAGE };

/** The signed-in user's own integrations (contract, area C). */
export function integrationRoutes(ctx: IntegrationContext): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get(
      '/service/integrations',
      {
        config,
        schema: {
          operationId: 'listIntegrations',
          tags,
          summary: 'List my calendar integrations',
          response: { 200: integrationList },
        },
      },
      async (request) => (await listIntegrations(ctx, ownerOf(request))).map(integrationView),
    );

    r.post(
      '/service/integrations/:provider/oauth/start',
      {
        config,
        schema: {
          operationId: 'startIntegrationOauth',
          description:
            "Creates a `pending` integration and answers the provider's consent URL; the browser returns through the OAuth callback, which redirects to `return_url` (default `/settings/calendars`, the console's page) with `integration_id`, `provider` and `status` (`active`, or `error` with `error`). The body is optional.",
          tags,
          summary: 'Start connecting a provider calendar (authorization code with PKCE)',
          params: providerParams,
          body: returnUrlBody,
          response: {
            ...problemAnswers({ provider_not_configured: 'the provider has no client id on this deployment' }),
            200: authorizationAnswer,
          },
        },
      },
      async (request) =>
        startConnection(
          ctx,
          ownerOf(request),
          request.params.provider,
          request.body?.return_url ?? DEFAULT_CONNECTION_RETURN_URL,
        ),
    );

    r.post(
      '/service/integrations/:integration_id/reconnect',
      {
        config,
        schema: {
          operationId: 'reconnectIntegration',
          tags,
          summary: 'Authorise an existing integration again (body optional: the last return URL by default)',
          params: integrationParams,
          body: reconnectBody,
          response: {
            ...problemAnswers({ provider_not_configured: 'the provider has no client id on this deployment' }),
            200: authorizationAnswer,
          },
        },
      },
      async (request) => reconnect(ctx, ownerOf(request), request.params.integration_id, request.body?.return_url),
    );

    r.post(
      '/service/integrations/:integration_id/sync',
      {
        config,
        schema: {
          operationId: 'syncIntegration',
          description:
            'One sync per integration runs at a time (409 while one runs). `fetched` counts every item the provider returned, cancelled and removed ones included. The answer comes once the unified calendar (`GET /calendar/events`) shows the changes, or after a bounded wait (`INTEGRATION_CALENDAR_WAIT_MS`) when it cannot tell.',
          tags,
          summary: 'Sync now; answers exact counts',
          params: integrationParams,
          response: {
            ...problemAnswers({
              conflict: 'the integration is revoked or in error (reconnect it), or a sync of it is running',
              service_unavailable: 'the provider failed or asked to retry later (see `Retry-After`)',
            }),
            200: syncCounts,
          },
        },
      },
      async (request) => syncOnRequest(ctx, await findOwned(ctx, ownerOf(request), request.params.integration_id)),
    );

    r.patch(
      '/service/integrations/:integration_id',
      {
        config,
        schema: {
          operationId: 'updateIntegration',
          description:
            'Calendar write-back: while on, a dedicated calendar in the connected account holds one event per task of yours that has a slot (moved and removed with it); turning it off deletes that calendar. The work happens in the background: `write_back.last_written_at` and `last_error` tell how it goes.',
          tags,
          summary: 'Turn calendar write-back on or off',
          params: integrationParams,
          body: integrationPatch,
          response: {
            ...problemAnswers({
              write_back_in_use: 'another integration of yours already writes back',
              reconnect_required: 'the integration was connected without the write scope: reconnect it first',
              conflict: 'the integration is not active (pending, in error or revoked)',
            }),
            200: integrationRead,
          },
        },
      },
      async (request) =>
        integrationView(
          await configureWriteBack(ctx, ownerOf(request), request.params.integration_id, request.body.write_back),
        ),
    );

    r.delete(
      '/service/integrations/:integration_id',
      {
        config,
        schema: {
          operationId: 'disconnectIntegration',
          description:
            "The row is kept as `revoked`, its tokens erased, its push channel stopped and its events leave the unified calendar (gone from `GET /calendar/events` by the answer, within a bounded wait); the provider's grant is revoked where it offers that.",
          tags,
          summary: 'Disconnect: revoke, stop push, drop its events (the row stays as revoked)',
          params: integrationParams,
          response: { 204: integrationDisconnected },
        },
      },
      async (request, reply) => {
        await disconnect(ctx, ownerOf(request), request.params.integration_id);
        return reply.status(204).send(null);
      },
    );
  };
}
