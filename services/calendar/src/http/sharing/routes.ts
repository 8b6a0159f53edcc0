import { problemAnswers, requirePrincipal } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { SharingService } from '../../domain/sharing.js';
import { calendarIdParams } from '../calendars/schemas.js';
import {
  shareCreateBody,
  sharePatchBody,
  sharingList,
  sharingParams,
  sharingRevoked,
  sharingSchema,
} from './schemas.js';

/** Calendar-level sharing rules answer 403 (contract, area B); the app factory documents the other errors. */
const errors = problemAnswers({
  forbidden: 'the caller may see this calendar but its sharing level does not allow this',
});

/** /calendars/:calendar_id/share and /sharing: managed by the owner and admins. */
export function sharingRoutes(sharing: SharingService): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    const tags = ['calendar sharing'];

    r.post(
      '/calendars/:calendar_id/share',
      {
        schema: {
          operationId: 'shareCalendar',
          tags,
          summary: 'Share with a user of the tenant by user_id or email (owner or admin)',
          params: calendarIdParams,
          body: shareCreateBody,
          response: {
            ...problemAnswers({ already_shared: 'the user holds a share of this calendar already (or is its owner)' }),
            201: sharingSchema,
            ...errors,
          },
        },
      },
      async (request, reply) =>
        reply
          .status(201)
          .send(await sharing.share(requirePrincipal(request), request.params.calendar_id, request.body)),
    );

    r.get(
      '/calendars/:calendar_id/sharing',
      {
        schema: {
          operationId: 'listCalendarShares',
          tags,
          summary: 'Sharing entries: all for the owner and admins, only their own for others',
          params: calendarIdParams,
          response: { 200: sharingList, ...errors },
        },
      },
      async (request) => sharing.list(requirePrincipal(request), request.params.calendar_id),
    );

    r.patch(
      '/calendars/:calendar_id/sharing/:sharing_id',
      {
        schema: {
          operationId: 'updateCalendarShare',
          tags,
          summary: 'Change the permission level of a share (owner or admin)',
          params: sharingParams,
          body: sharePatchBody,
          response: { 200: sharingSchema, ...errors },
        },
      },
      async (request) =>
        sharing.update(
          requirePrincipal(request),
          request.params.calendar_id,
          request.params.sharing_id,
          request.body.permission,
        ),
    );

    r.delete(
      '/calendars/:calendar_id/sharing/:sharing_id',
      {
        schema: {
          operationId: 'revokeCalendarShare',
          tags,
          summary: 'Revoke a share (owner or admin)',
          params: sharingParams,
          response: { 204: sharingRevoked, ...errors },
        },
      },
      async (request, reply) => {
        await sharing.revoke(requirePrincipal(request), request.params.calendar_id, request.params.sharing_id);
        return reply.status(204).send(null);
      },
    );
  };
}
