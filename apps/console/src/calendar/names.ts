import type { CalendarEvent } from '../api/queries.js';
import { sameDay, type Wall, wallOf } from '../time/wall.js';
import { hhmm, weekdayName } from '../time/zone.js';

/** A block's accessible name: "Water the plants, Tuesday 09:00 to 09:15" (the end's weekday when it differs). */
export function slotName(title: string, start: Wall, end: Wall): string {
  const endDay = sameDay(start, end) ? '' : `${weekdayName(end)} `;
  return `${title}, ${weekdayName(start)} ${hhmm(start)} to ${endDay}${hhmm(end)}`;
}

/** The same name for ISO instants, read in the settings timezone. */
export function slotNameOf(title: string, start: string, end: string, timeZone: string): string {
  return slotName(title, wallOf(start, timeZone), wallOf(end, timeZone));
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
