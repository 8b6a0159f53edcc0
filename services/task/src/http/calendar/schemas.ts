import { nameSchemas, problemSchema, timestampOut } from '@routinely/platform';
import { z } from 'zod';
import { VIEWS } from '../../domain/calendar/calendar.js';

/** Datetimes in carry an offset (a local time without one is 422); out they are UTC with `Z`. */
const instantIn = z.iso.datetime({ offset: true }).transform((value) => new Date(value));

export const eventIdParams = z.object({ event_id: z.uuid() });

export const eventsQuery = z.object({
  from: instantIn.optional().describe("default: the start of today in the user's timezone"),
  to: instantIn.optional().describe("default: from plus the view's length (day, week, one calendar month, 30 days)"),
  view: z.enum(VIEWS).default('week'),
  limit: z.coerce.number().int().min(1).max(1000).default(500),
});

export const freeBusyQuery = z.object({ from: instantIn, to: instantIn });

export const unifiedEvent = z.object({
  id: z.uuid().describe("the task id of a task-backed event; ours for a provider's event"),
  source: z.enum(['task', 'google', 'microsoft']),
  title: z.string(),
  start: timestampOut(),
  end: timestampOut(),
  all_day: z.boolean(),
  status: z.string().describe('the task status, or confirmed / tentative for a provider event'),
  busy: z.boolean(),
  task_id: z.uuid().nullable(),
  integration_id: z.uuid().nullable(),
  external_id: z.string().nullable(),
  editable: z.boolean(),
});

export const eventsPage = z.object({
  from: timestampOut(),
  to: timestampOut(),
  view: z.enum(VIEWS),
  events: z.array(unifiedEvent),
});

const source = z.enum(['task', 'google', 'microsoft']);

export const freeBusyRead = z.object({
  from: timestampOut(),
  to: timestampOut(),
  busy: z.array(
    z.object({
      start: timestampOut(),
      end: timestampOut(),
      source: z.enum(['task', 'google', 'microsoft', 'mixed']),
      sources: z.array(z.object({ source, id: z.uuid(), title: z.string() })),
    }),
  ),
});

export const eventNotEditable = problemSchema.describe('event_not_editable: an event of a connected calendar');
export const eventUnscheduled = z.null().describe('Unscheduled');

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  CalendarEvent: unifiedEvent,
  CalendarEventsPage: eventsPage,
  FreeBusy: freeBusyRead,
});
