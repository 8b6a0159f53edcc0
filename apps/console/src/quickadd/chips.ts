import type { paths } from '@routinely/api-client';
import { durationLabel, hhmm, longDay, zoned } from '../time/zone.js';

/** What `POST /tasks/parse` understood (the document's type). */
export type Fields =
  paths['/api/v1/service/tasks/parse']['post']['responses'][200]['content']['application/json']['fields'];
export type ChipKey =
  | 'duration_min'
  | 'priority'
  | 'deadline_at'
  | 'earliest_start_at'
  | 'recurrence'
  | `tag:${string}`;
export interface Chip {
  key: ChipKey;
  label: string;
}

const when = (iso: string, timeZone: string) => {
  const t = zoned(iso, timeZone);
  return `${longDay(t.toPlainDate())} ${hhmm(t)}`;
};

/** The recognised parts of a parse as chips, in the user's timezone. */
export function chipsOf(fields: Fields, timeZone: string): Chip[] {
  const chips: Chip[] = [];
  if (fields.duration_min !== undefined) chips.push({ key: 'duration_min', label: durationLabel(fields.duration_min) });
  if (fields.earliest_start_at)
    chips.push({ key: 'earliest_start_at', label: `From ${when(fields.earliest_start_at, timeZone)}` });
  if (fields.deadline_at) chips.push({ key: 'deadline_at', label: `Due ${when(fields.deadline_at, timeZone)}` });
  if (fields.priority !== undefined) chips.push({ key: 'priority', label: `Priority ${fields.priority}` });
  for (const tag of fields.tags ?? []) chips.push({ key: `tag:${tag}`, label: `#${tag}` });
  if (fields.recurrence) chips.push({ key: 'recurrence', label: `Repeats ${fields.recurrence.rule}` });
  return chips;
}

/** The fields without the part a removed chip stood for. */
export function without(fields: Fields, key: ChipKey): Fields {
  if (key.startsWith('tag:')) return { ...fields, tags: (fields.tags ?? []).filter((t) => `tag:${t}` !== key) };
  const { [key as keyof Fields]: _dropped, ...rest } = fields;
  return rest;
}
