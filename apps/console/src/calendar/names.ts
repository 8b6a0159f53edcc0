import type { Temporal } from 'temporal-polyfill';
import type { CalendarEvent } from '../api/queries.js';
import { hhmm, weekdayName } from '../time/zone.js';

/** A block's accessible name: "Water the plants, Tuesday 09:00 to 09:15" (the end's weekday when it differs). */
export function slotName(title: string, start: Temporal.ZonedDateTime, end: Temporal.ZonedDateTime): string {
  const endDay = start.toPlainDate().equals(end.toPlainDate()) ? '' : `${weekdayName(end)} `;
  return `${title}, ${weekdayName(start)} ${hhmm(start)} to ${endDay}${hhmm(end)}`;
}

export const PROVIDERS: Record<string, string> = { google: 'Google Calendar', microsoft: 'Microsoft Outlook' };

export function providerName(event: CalendarEvent): string {
  return PROVIDERS[event.source] ?? event.source;
}

const REASONS: Record<string, string> = {
  not_schedulable: 'it is done, skipped or cancelled',
  no_duration: 'it has no duration',
  no_slot_in_window: 'no free working time is left in this week',
  no_slot_before_deadline: 'no free time fits before its deadline',
  blocked_by_dependency: 'a task it depends on is not placed',
};

export function reasonText(reason: string): string {
  return REASONS[reason] ?? reason;
}
