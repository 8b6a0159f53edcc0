import type { Permission } from '@routinely/platform';
import { ownerOf, problemAnswers } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { DeliveryContext } from '../../domain/context.js';
import {
  createEndpoint,
  deleteEndpoint,
  findEndpoint,
  listEndpoints,
  rotateSecret,
  testEndpoint,
  updateEndpoint,
} from '../../domain/endpoints.js';
import {
  endpointCreateBody,
  endpointDeleted,
  endpointList,
  endpointParams,
  endpointPatchBody,
  endpointRead,
  endpointWithSecret,
  testResult,
  toEndpoint,
} from './schemas.js';

const READ: Permission[] = ['SERVICE_WEBHOOK_READ', 'SERVICE_WEBHOOK_MANAGE'];
const WRITE: Permission = 'SERVICE_WEBHOOK_MANAGE';
const tags = ['webhooks'];

export function webhookRoutes(ctx: DeliveryContext): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get(
      '/service/webhooks',
      {
        config: { permission: READ },
        schema: {
          operationId: 'listWebhookEndpoints',
          summary: 'List webhook endpoints (secrets never returned, only secret_preview)',
          tags,
          response: { 200: endpointList },
        },
      },
      async (request) => (await listEndpoints(ctx, ownerOf(request))).map(toEndpoint),
    );

    r.post(
      '/service/webhooks',
      {
        config: { permission: WRITE },
        schema: {
          operationId: 'createWebhookEndpoint',
          description:
            'The URL must be https on a public address (checked again at every send). The answer shows the signing `secret` once; later reads show `secret_preview`. A user has at most 20 endpoints by default (422 `too_many_endpoints`).',
          summary: 'Create a webhook endpoint; the answer carries its secret, once',
          tags,
          body: endpointCreateBody,
          response: {
            ...problemAnswers({ too_many_endpoints: 'the user has the maximum number of endpoints already' }),
            201: endpointWithSecret,
          },
        },
      },
      async (request, reply) => {
        const { row, secret } = await createEndpoint(ctx, ownerOf(request), request.body);
        return reply.status(201).send({ ...toEndpoint(row), secret });
      },
    );

    r.get(
      '/service/webhooks/:endpoint_id',
      {
        config: { permission: READ },
        schema: {
          operationId: 'getWebhookEndpoint',
          summary: 'One webhook endpoint, without its secret',
          tags,
          params: endpointParams,
          response: { 200: endpointRead },
        },
      },
      async (request) => toEndpoint(await findEndpoint(ctx, ownerOf(request), request.params.endpoint_id)),
    );

    r.patch(
      '/service/webhooks/:endpoint_id',
      {
        config: { permission: WRITE },
        schema: {
          operationId: 'updateWebhookEndpoint',
          summary: 'Change a webhook endpoint',
          tags,
          params: endpointParams,
          body: endpointPatchBody,
          response: { 200: endpointRead },
        },
      },
      async (request) =>
        toEndpoint(await updateEndpoint(ctx, ownerOf(request), request.params.endpoint_id, request.body)),
    );

    r.delete(
      '/service/webhooks/:endpoint_id',
      {
        config: { permission: WRITE },
        schema: {
          operationId: 'deleteWebhookEndpoint',
          summary: 'Delete a webhook endpoint',
          tags,
          params: endpointParams,
          response: { 204: endpointDeleted },
        },
      },
      async (request, reply) => {
        await deleteEndpoint(ctx, ownerOf(request), request.params.endpoint_id);
        return reply.status(204).send(null);
      },
    );

    r.post(
      '/service/webhooks/:endpoint_id/rotate-secret',
      {
        config: { permission: WRITE },
        schema: {
          operationId: 'rotateWebhookSecret',
          description: 'A new secret replaces the old at once; the answer shows it once.',
          summary: 'Replace the signing secret; the answer carries the new one, once',
          tags,
          params: endpointParams,
          response: { 200: endpointWithSecret },
        },
      },
      async (request) => {
        const { row, secret } = await rotateSecret(ctx, ownerOf(request), request.params.endpoint_id);
        return { ...toEndpoint(row), secret };
      },
    );

    r.post(
      '/service/webhooks/:endpoint_id/test',
      {
        config: { permission: WRITE },
        schema: {
          operationId: 'testWebhookEndpoint',
          summary: "Send a signed webhook.test now and report the receiver's answer (no retries)",
          tags,
          params: endpointParams,
          response: { 200: testResult },
        },
      },
      async (request) => testEndpoint(ctx, ownerOf(request), request.params.endpoint_id),
    );
  };
}
