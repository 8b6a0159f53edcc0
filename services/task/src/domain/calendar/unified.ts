import type { ExternalEventRow } from '../../db/calendar-sql.js';
import type { TaskRow } from '../task-model.js';

export type EventSource = 'task' | 'google' | 'microsoft';

/** The contract's unified event, with instants still as Dates (serialised by the route). */
export interface UnifiedEvent {
  id: string;
  source: EventSource;
  title: string;
  start: Date;
  end: Date;
  all_day: boolean;
  status: string;
  busy: boolean;
  task_id: string | null;
  integration_id: string | null;
  external_id: string | null;
  editable: boolean;
}

/**
 * A task on the calendar: only a task with a slot is one. It blocks time while it is scheduled; once done or
 * skipped it stays visible in its slot but no longer makes the user busy.
 */
export function taskEvent(row: TaskRow): UnifiedEvent | null {
  if (!row.chosen_slot_start || !row.chosen_slot_end || row.status === 'cancelled') return null;
  return {
    id: row.id,
    source: 'task',
    title: row.title,
    start: row.chosen_slot_start,
    end: row.chosen_slot_end,
    all_day: false,
    status: row.status,
    busy: row.status === 'scheduled',
    task_id: row.id,
    integration_id: null,
    external_id: null,
    editable: true,
  };
}

export function externalEvent(row: ExternalEventRow): UnifiedEvent {
  return {
    id: row.id,
    source: row.provider,
    title: row.title,
    start: row.start_at,
    end: row.end_at,
    all_day: row.all_day,
    status: row.status,
    busy: row.busy,
    task_id: null,
    integration_id: row.integration_id,
    external_id: row.external_id,
    editable: false,
  };
}

/** Calendar order: by start, then end, then id, so equal starts page the same way every time. */
export function byStart(a: UnifiedEvent, b: UnifiedEvent): number {
  return (
    a.start.getTime() - b.start.getTime() ||
    a.end.getTime() - b.end.getTime() ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

export function toEventRead(event: UnifiedEvent) {
  return { ...event, start: event.start.toISOString(), end: event.end.toISOString() };
}
