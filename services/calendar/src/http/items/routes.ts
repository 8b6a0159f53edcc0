import { problemAnswers, requirePrincipal } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { ItemService } from '../../domain/items.js';
import { calendarIdParams } from '../calendars/schemas.js';
import { itemCreateBody, itemParams, itemPatchBody, itemSchema, itemWindowQuery, itemWindowSchema } from './schemas.js';

/** Calendar-level sharing rules answer 403 (contract, area B); the app factory documents the other errors. */
const errors = problemAnswers({
  forbidden: 'the caller may see this calendar but its sharing level does not allow this',
});

/** /calendars/:calendar_id/items: the window query (view) and item changes (edit or better). */
export function itemRoutes(items: ItemService): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    const tags = ['calendar items'];

    r.get(
      '/calendars/:calendar_id/items',
      {
        schema: {
          operationId: 'listCalendarItems',
          tags,
          summary: 'Items overlapping a window of dates in the calendar timezone',
          params: calendarIdParams,
          querystring: itemWindowQuery,
          response: { 200: itemWindowSchema, ...errors },
        },
      },
      async (request) => items.window(requirePrincipal(request), request.params.calendar_id, request.query),
    );

    r.post(
      '/calendars/:calendar_id/items',
      {
        schema: {
          operationId: 'createCalendarItem',
          tags,
          summary: 'Add an item (edit permission or better)',
          params: calendarIdParams,
          body: itemCreateBody,
          response: { 201: itemSchema, ...errors },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await items.create(requirePrincipal(request), request.params.calendar_id, request.body)),
    );

    r.patch(
      '/calendars/:calendar_id/items/:item_id',
      {
        schema: {
          operationId: 'updateCalendarItem',
          tags,
          summary: 'Change an item (edit permission or better)',
          params: itemParams,
          body: itemPatchBody,
          response: { 200: itemSchema, ...errors },
        },
      },
      async (request) =>
        items.update(requirePrincipal(request), request.params.calendar_id, request.params.item_id, request.body),
    );

    r.delete(
      '/calendars/:calendar_id/items/:item_id',
      {
        schema: {
          operationId: 'cancelCalendarItem',
          tags,
          summary: 'Cancel an item (edit permission or better); answers the cancelled item',
          params: itemParams,
          response: { 200: itemSchema, ...errors },
        },
      },
      async (request) => items.cancel(requirePrincipal(request), request.params.calendar_id, request.params.item_id),
    );
  };
}
