import { z } from 'zod';
import type { ApiCall } from './adapter.js';
import {
  type CalendarWriter,
  drained,
  type EventContent,
  type EventWriteOutcome,
  isGone,
  TASK_PROPERTY,
} from './calendar-writer.js';
import { readAnswer } from './http.js';

/** Our property set: Graph names single-value extended properties `String {guid} Name <name>`. */
const PROPERTY_SET = '{4c1b6f0e-5d2a-4a8e-9a51-7d3c8e2f6b10}';
const TASK_PROPERTY_ID = `String ${PROPERTY_SET} Name ${TASK_PROPERTY}`;
const CALENDAR_MARKER_ID = `String ${PROPERTY_SET} Name routinely_write_back`;

const property = z.object({ id: z.string(), value: z.string().nullish() });
const calendars = z.object({
  value: z.array(z.object({ id: z.string(), singleValueExtendedProperties: z.array(property).nullish() })).nullish(),
  '@odata.nextLink': z.string().nullish(),
});
const created = z.object({ id: z.string() });

const json = (body: unknown): RequestInit => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
/** Graph's dateTimeTimeZone: a wall time without offset and its zone. */
const utc = (at: Date) => ({ dateTime: at.toISOString().slice(0, -1), timeZone: 'UTC' });

function eventBody(event: EventContent) {
  return {
    subject: event.title,
    body: { contentType: 'text', content: event.description ?? '' },
    start: utc(event.start),
    end: utc(event.end),
    showAs: 'busy',
    isReminderOn: false,
    singleValueExtendedProperties: [{ id: TASK_PROPERTY_ID, value: event.taskId }],
  };
}

/** Microsoft Graph: /me/calendars (create, list with our marker, delete), events create/patch/delete. */
export class MicrosoftCalendarWriter implements CalendarWriter {
  constructor(private readonly graph: string) {}

  async findCalendar(api: ApiCall, marker: string): Promise<string | null> {
    const expand = `singleValueExtendedProperties($filter=id eq '${CALENDAR_MARKER_ID}')`;
    let url: string | null = `${this.graph}/me/calendars?${new URLSearchParams({ $expand: expand, $top: '100' })}`;
    while (url) {
      const page: z.infer<typeof calendars> = await readAnswer(
        await api('calendar list', url),
        'calendar list',
        calendars,
      );
      const ours = (page.value ?? []).find((c) =>
        (c.singleValueExtendedProperties ?? []).some((p) => p.id === CALENDAR_MARKER_ID && p.value === marker),
      );
      if (ours) return ours.id;
      const next: string | null | undefined = page['@odata.nextLink'];
      url = next && new URL(next).origin === new URL(this.graph).origin ? next : null;
    }
    return null;
  }

  async createCalendar(api: ApiCall, name: string, marker: string): Promise<string> {
    const response = await api('calendar create', `${this.graph}/me/calendars`, {
      method: 'POST',
      ...json({ name, singleValueExtendedProperties: [{ id: CALENDAR_MARKER_ID, value: marker }] }),
    });
    return (await readAnswer(response, 'calendar create', created)).id;
  }

  async deleteCalendar(api: ApiCall, calendarId: string): Promise<void> {
    await drained(
      api('calendar delete', `${this.graph}/me/calendars/${encodeURIComponent(calendarId)}`, {
        method: 'DELETE',
      }),
    ).catch(ignoreGone);
  }

  /** transactionId makes Graph answer a retried create with the event the first try made. */
  async createEvent(api: ApiCall, calendarId: string, event: EventContent): Promise<EventWriteOutcome> {
    const response = await api('event create', `${this.graph}/me/calendars/${encodeURIComponent(calendarId)}/events`, {
      method: 'POST',
      ...json({ ...eventBody(event), transactionId: `${event.taskId}.${event.generation}` }),
    });
    return { id: (await readAnswer(response, 'event create', created)).id };
  }

  async updateEvent(api: ApiCall, _calendarId: string, id: string, event: EventContent): Promise<EventWriteOutcome> {
    try {
      await drained(
        api('event update', `${this.graph}/me/events/${encodeURIComponent(id)}`, {
          method: 'PATCH',
          ...json(eventBody(event)),
        }),
      );
      return { id };
    } catch (error) {
      if (isGone(error)) return 'gone';
      throw error;
    }
  }

  async deleteEvent(api: ApiCall, _calendarId: string, id: string): Promise<void> {
    await drained(api('event delete', `${this.graph}/me/events/${encodeURIComponent(id)}`, { method: 'DELETE' })).catch(
      ignoreGone,
    );
  }
}

function ignoreGone(error: unknown): undefined {
  if (isGone(error)) return undefined;
  throw error;
}
