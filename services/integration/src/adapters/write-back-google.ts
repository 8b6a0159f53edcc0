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
import { ProviderError, readAnswer } from './http.js';

const calendarList = z.object({
  items: z.array(z.object({ id: z.string(), description: z.string().nullish() })).nullish(),
  nextPageToken: z.string().nullish(),
});
const created = z.object({ id: z.string() });

/**
 * Google's event id for a task: base32hex (a-v, 0-9), 5 to 1024 characters, chosen by us so that an insert
 * retried after a crash answers 409 instead of making a second event. A uuid's hex digits are base32hex.
 */
export function googleEventId(taskId: string, generation: number): string {
  return `rt${taskId.replaceAll('-', '')}${generation > 0 ? `g${generation}` : ''}`;
}

const json = (body: unknown): RequestInit => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

function eventBody(event: EventContent) {
  return {
    summary: event.title,
    // null clears a description an earlier "details" write left (a patch keeps fields it is not given).
    description: event.description,
    start: { dateTime: event.start.toISOString() },
    end: { dateTime: event.end.toISOString() },
    transparency: 'opaque',
    status: 'confirmed',
    extendedProperties: { private: { [TASK_PROPERTY]: event.taskId } },
  };
}

/** Google Calendar v3: calendars.insert/delete, calendarList.list, events.insert/patch/delete. */
export class GoogleCalendarWriter implements CalendarWriter {
  constructor(private readonly base: string) {}

  async findCalendar(api: ApiCall, marker: string): Promise<string | null> {
    let pageToken: string | undefined;
    for (;;) {
      const query = new URLSearchParams({ maxResults: '250', minAccessRole: 'owner' });
      if (pageToken) query.set('pageToken', pageToken);
      const response = await api('calendar list', `${this.base}/users/me/calendarList?${query}`);
      const page = await readAnswer(response, 'calendar list', calendarList);
      const ours = (page.items ?? []).find((item) => item.description?.includes(marker));
      if (ours) return ours.id;
      if (!page.nextPageToken) return null;
      pageToken = page.nextPageToken;
    }
  }

  async createCalendar(api: ApiCall, name: string, marker: string): Promise<string> {
    const response = await api('calendar insert', `${this.base}/calendars`, {
      method: 'POST',
      ...json({ summary: name, description: `Tasks scheduled by Routinely (${marker})` }),
    });
    return (await readAnswer(response, 'calendar insert', created)).id;
  }

  async deleteCalendar(api: ApiCall, calendarId: string): Promise<void> {
    await drained(
      api('calendar delete', `${this.base}/calendars/${encodeURIComponent(calendarId)}`, {
        method: 'DELETE',
      }),
    ).catch(ignoreGone);
  }

  async createEvent(api: ApiCall, calendarId: string, event: EventContent): Promise<EventWriteOutcome> {
    const id = googleEventId(event.taskId, event.generation);
    try {
      await drained(
        api('event insert', this.events(calendarId), { method: 'POST', ...json({ id, ...eventBody(event) }) }),
      );
      return { id };
    } catch (error) {
      // 409: an event with this id exists: our own earlier insert, whose answer a crash or timeout lost.
      if (!(error instanceof ProviderError && error.status === 409)) throw error;
      return this.updateEvent(api, calendarId, id, event);
    }
  }

  async updateEvent(api: ApiCall, calendarId: string, id: string, event: EventContent): Promise<EventWriteOutcome> {
    try {
      await drained(
        api('event patch', `${this.events(calendarId)}/${encodeURIComponent(id)}`, {
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

  async deleteEvent(api: ApiCall, calendarId: string, id: string): Promise<void> {
    await drained(
      api('event delete', `${this.events(calendarId)}/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    ).catch(ignoreGone);
  }

  private events(calendarId: string): string {
    return `${this.base}/calendars/${encodeURIComponent(calendarId)}/events`;
  }
}

function ignoreGone(error: unknown): undefined {
  if (isGone(error)) return undefined;
  throw error;
}
