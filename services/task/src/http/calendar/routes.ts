import { ownerOf } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { CalendarService } from '../../domain/calendar/calendar.js';
import { toEventRead } from '../../domain/calendar/unified.js';
import {
  eventIdParams,
  eventNotEditable,
  eventsPage,
  eventsQuery,
  eventUnscheduled,
  freeBusyQuery,
  freeBusyRead,
  unifiedEvent,
} from './schemas.js';

const tags = ['calendar'];
const notEditable = { 409: eventNotEditable };

export function calendarRoutes(calendar: CalendarService): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get(
      '/service/calendar/events',
      {
        config: { permission: 'SERVICE_TASK_READ' },
        schema: {
          operationId: 'listCalendarEvents',
          description:
            "`view` defaults to `week`; `from` to the start of today in the user's timezone; `to` to `from` plus the view's length. At most 366 days; `limit` 1..1000 (default 500); sorted by start.",
          tags,
          summary: 'Scheduled tasks and connected calendar events as one list, sorted by start',
          querystring: eventsQuery,
          response: { 200: eventsPage },
        },
      },
      async (request) => {
        const page = await calendar.list(ownerOf(request), request.query);
        return {
          from: page.from.toISOString(),
          to: page.to.toISOString(),
          view: page.view,
          events: page.events.map(toEventRead),
        };
      },
    );

    r.get(
      '/service/calendar/events/:event_id',
      {
        config: { permission: 'SERVICE_TASK_READ' },
        schema: {
          operationId: 'getCalendarEvent',
          tags,
          summary: 'One calendar event',
          params: eventIdParams,
          response: { 200: unifiedEvent },
        },
      },
      async (request) => toEventRead(await calendar.get(ownerOf(request), request.params.event_id)),
    );

    r.post(
      '/service/calendar/events/:event_id/done',
      {
        config: { permission: 'SERVICE_TASK_UPDATE' },
        schema: {
          operationId: 'markCalendarEventDone',
          tags,
          summary: 'Mark the task behind the event done',
          params: eventIdParams,
          response: { 200: unifiedEvent, ...notEditable },
        },
      },
      async (request) => toEventRead(await calendar.markDone(ownerOf(request), request.params.event_id)),
    );

    r.post(
      '/service/calendar/events/:event_id/skip',
      {
        config: { permission: 'SERVICE_TASK_UPDATE' },
        schema: {
          operationId: 'skipCalendarEvent',
          tags,
          summary: 'Mark the task behind the event skipped',
          params: eventIdParams,
          response: { 200: unifiedEvent, ...notEditable },
        },
      },
      async (request) => toEventRead(await calendar.skip(ownerOf(request), request.params.event_id)),
    );

    r.delete(
      '/service/calendar/events/:event_id',
      {
        config: { permission: 'SERVICE_TASK_UPDATE' },
        schema: {
          operationId: 'unscheduleCalendarEvent',
          description:
            'The task goes back to `pending` and its reminder is cancelled. Events of a connected calendar are changed there (409 `event_not_editable`).',
          tags,
          summary: 'Unschedule: the task goes back to pending and its reminder is cancelled',
          params: eventIdParams,
          response: { 204: eventUnscheduled, ...notEditable },
        },
      },
      async (request, reply) => {
        await calendar.unschedule(ownerOf(request), request.params.event_id);
        return reply.status(204).send(null);
      },
    );

    r.get(
      '/service/calendar/free-busy',
      {
        config: { permission: 'SERVICE_TASK_READ' },
        schema: {
          operationId: 'getFreeBusy',
          description:
            'Both `from` and `to` are required, at most 93 days apart. Overlapping busy blocks of every source are merged, each naming its sources.',
          tags,
          summary: 'Busy blocks of every source in the window, naming what made each busy',
          querystring: freeBusyQuery,
          response: { 200: freeBusyRead },
        },
      },
      async (request) => {
        const { from, to } = request.query;
        const blocks = await calendar.freeBusy(ownerOf(request), { from, to });
        return {
          from: from.toISOString(),
          to: to.toISOString(),
          busy: blocks.map((b) => ({ ...b, start: b.start.toISOString(), end: b.end.toISOString() })),
        };
      },
    );
  };
}
