import { problemAnswers, requirePrincipal } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { CalendarService } from '../../domain/calendars.js';
import {
  calendarCreateBody,
  calendarDeleted,
  calendarIdParams,
  calendarListQuery,
  calendarPageSchema,
  calendarPatchBody,
  calendarSchema,
} from './schemas.js';

/** Calendar-level sharing rules answer 403 (contract, area B); the app factory documents the other errors. */
const errors = problemAnswers({
  forbidden: 'the caller may see this calendar but its sharing level does not allow this',
});

/** /calendars and /calendars/:calendar_id. Any user of the tenant; calendar-level rules live in the domain. */
export function calendarRoutes(calendars: CalendarService): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();
    const tags = ['calendars'];

    r.get(
      '/calendars',
      {
        schema: {
          operationId: 'listCalendars',
          tags,
          summary: 'List calendars the caller owns or can see',
          querystring: calendarListQuery,
          response: { 200: calendarPageSchema },
        },
      },
      async (request) => calendars.list(requirePrincipal(request), request.query),
    );

    r.post(
      '/calendars',
      {
        schema: {
          operationId: 'createCalendar',
          tags,
          summary: 'Create a calendar owned by the caller',
          body: calendarCreateBody,
          response: { 201: calendarSchema },
        },
      },
      async (request, reply) => reply.status(201).send(await calendars.create(requirePrincipal(request), request.body)),
    );

    r.get(
      '/calendars/:calendar_id',
      {
        schema: {
          operationId: 'getCalendar',
          tags,
          summary: 'Get a calendar (view permission or better)',
          params: calendarIdParams,
          response: { 200: calendarSchema, ...errors },
        },
      },
      async (request) => calendars.get(requirePrincipal(request), request.params.calendar_id),
    );

    r.patch(
      '/calendars/:calendar_id',
      {
        schema: {
          operationId: 'updateCalendar',
          tags,
          summary: 'Change a calendar (edit permission or better; visibility needs admin)',
          params: calendarIdParams,
          body: calendarPatchBody,
          response: { 200: calendarSchema, ...errors },
        },
      },
      async (request) => calendars.update(requirePrincipal(request), request.params.calendar_id, request.body),
    );

    r.delete(
      '/calendars/:calendar_id',
      {
        schema: {
          operationId: 'deleteCalendar',
          tags,
          summary: 'Soft-delete a calendar and its items (owner or admin)',
          params: calendarIdParams,
          response: { 204: calendarDeleted, ...errors },
        },
      },
      async (request, reply) => {
        await calendars.remove(requirePrincipal(request), request.params.calendar_id);
        return reply.status(204).send(null);
      },
    );
  };
}
