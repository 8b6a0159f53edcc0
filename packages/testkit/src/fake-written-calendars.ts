import { randomBytes } from 'node:crypto';

/** One event a client wrote into a secondary calendar, as the provider keeps it (deleted ones stay as tombstones). */
export interface WrittenEvent {
  id: string;
  calendarId: string;
  /** The event resource as written (Google: summary/description/start/end/extendedProperties; Graph: subject/body/...). */
  body: Record<string, unknown>;
  deleted: boolean;
}

export interface WrittenCalendar {
  id: string;
  name: string;
  /** Google: the description; Graph: single-value extended properties by id. */
  description?: string;
  properties: Record<string, string>;
  events: Map<string, WrittenEvent>;
}

/** One write a client made, in the order the provider applied them. */
export interface WriteLogEntry {
  op: 'insert' | 'patch' | 'delete';
  calendarId: string;
  eventId: string;
  body?: Record<string, unknown>;
  /** When the provider applied it (epoch ms): a bench reads write-back lag from it. */
  at: number;
}

/**
 * The secondary calendars of a fake provider and what was written into them: kept so tests can read it back,
 * apart from the primary calendar that sync reads (so written events are never read back as busy time).
 */
export class WrittenCalendars {
  readonly calendars = new Map<string, WrittenCalendar>();
  readonly log: WriteLogEntry[] = [];
  /** Calendars deleted so far (by id). */
  readonly deletedCalendars: string[] = [];

  create(name: string, id: string, extra: { description?: string; properties?: Record<string, string> } = {}) {
    const calendar: WrittenCalendar = {
      id,
      name,
      ...(extra.description === undefined ? {} : { description: extra.description }),
      properties: extra.properties ?? {},
      events: new Map(),
    };
    this.calendars.set(id, calendar);
    return calendar;
  }

  deleteCalendar(id: string): boolean {
    if (!this.calendars.delete(id)) return false;
    this.deletedCalendars.push(id);
    return true;
  }

  /** Stores a new event (null fields are not stored, as the providers keep no null field). */
  insert(calendar: WrittenCalendar, id: string, written: Record<string, unknown>): WrittenEvent {
    const body = Object.fromEntries(Object.entries(written).filter(([, value]) => value !== null));
    const event = { id, calendarId: calendar.id, body, deleted: false };
    calendar.events.set(id, event);
    this.log.push({ op: 'insert', calendarId: calendar.id, eventId: id, body, at: Date.now() });
    return event;
  }

  /** Merges `patch` into the event (a null value removes the field, as a JSON merge patch does). */
  patch(event: WrittenEvent, patch: Record<string, unknown>): WrittenEvent {
    const body = { ...event.body };
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete body[key];
      else body[key] = value;
    }
    event.body = body;
    this.log.push({ op: 'patch', calendarId: event.calendarId, eventId: event.id, body, at: Date.now() });
    return event;
  }

  remove(event: WrittenEvent): void {
    event.deleted = true;
    this.log.push({ op: 'delete', calendarId: event.calendarId, eventId: event.id, at: Date.now() });
  }

  /** The user deletes an event in their calendar app (not through the API's log). */
  deleteByUser(eventId: string): void {
    for (const calendar of this.calendars.values()) {
      const event = calendar.events.get(eventId);
      if (event) event.deleted = true;
    }
  }

  /** Live events of every written calendar (or of one). */
  live(calendarId?: string): WrittenEvent[] {
    return [...this.calendars.values()]
      .filter((c) => calendarId === undefined || c.id === calendarId)
      .flatMap((c) => [...c.events.values()].filter((e) => !e.deleted));
  }

  findEvent(eventId: string): WrittenEvent | undefined {
    for (const calendar of this.calendars.values()) {
      const event = calendar.events.get(eventId);
      if (event) return event;
    }
    return undefined;
  }
}

export const randomId = (prefix: string) => `${prefix}${randomBytes(8).toString('hex')}`;
