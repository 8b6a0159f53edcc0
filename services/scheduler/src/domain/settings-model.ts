import { nameSchemas, timestampOut } from '@routinely/platform';
import { canonicalTimeZone } from '@routinely/time';
import { z } from 'zod';
import { providerName } from './providers.js';

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Day = (typeof DAYS)[number];
const MAX_INTERVALS_PER_DAY = 6;

export { canonicalTimeZone };

const timezoneSchema = z
  .string()
  .max(64)
  .transform((value, ctx) => {
    const zone = canonicalTimeZone(value);
    if (!zone) ctx.addIssue({ code: 'custom', message: `Unknown IANA timezone: ${value}` });
    return zone ?? z.NEVER;
  });

/** Wall-clock `HH:MM`, 00:00 to 23:59, plus `24:00` for the end of a day. */
const wallClock = z.string().regex(/^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'must be HH:MM between 00:00 and 24:00');

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

const interval = z.object({ start: wallClock, end: wallClock }).strict();

const dayIntervals = z
  .array(interval)
  .max(MAX_INTERVALS_PER_DAY, `at most ${MAX_INTERVALS_PER_DAY} intervals a day`)
  .superRefine((list, ctx) => {
    list.forEach((item, index) => {
      if (item.start === '24:00')
        ctx.addIssue({ code: 'custom', path: [index, 'start'], message: 'start cannot be 24:00' });
      else if (minutes(item.start) >= minutes(item.end)) {
        ctx.addIssue({ code: 'custom', path: [index, 'end'], message: 'end must be after start' });
      }
    });
    const order = list.map((item, index) => ({ ...item, index })).sort((a, b) => minutes(a.start) - minutes(b.start));
    for (let i = 1; i < order.length; i++) {
      const previous = order[i - 1];
      const current = order[i];
      if (previous && current && minutes(current.start) < minutes(previous.end)) {
        ctx.addIssue({
          code: 'custom',
          path: [current.index, 'start'],
          message: 'intervals of a day must not overlap',
        });
      }
    }
  });

/** `{ mon: [{ start, end }], ... }`; a missing day is `[]`, an unknown key is refused. */
export const workingHoursSchema = z
  .object({
    mon: dayIntervals.optional(),
    tue: dayIntervals.optional(),
    wed: dayIntervals.optional(),
    thu: dayIntervals.optional(),
    fri: dayIntervals.optional(),
    sat: dayIntervals.optional(),
    sun: dayIntervals.optional(),
  })
  .strict()
  .transform((hours) => Object.fromEntries(DAYS.map((day) => [day, sortDay(hours[day] ?? [])])) as WorkingHours);

export type WorkingInterval = { start: string; end: string };
export type WorkingHours = Record<Day, WorkingInterval[]>;

function sortDay(list: WorkingInterval[]): WorkingInterval[] {
  return [...list].sort((a, b) => minutes(a.start) - minutes(b.start));
}

export const workingHoursOut = z.object(
  Object.fromEntries(DAYS.map((day) => [day, z.array(z.object({ start: z.string(), end: z.string() }))])) as Record<
    Day,
    z.ZodArray<z.ZodObject<{ start: z.ZodString; end: z.ZodString }>>
  >,
);

export function defaultWorkingHours(): WorkingHours {
  const weekday = [{ start: '09:00', end: '17:00' }];
  return { mon: weekday, tue: weekday, wed: weekday, thu: weekday, fri: weekday, sat: [], sun: [] };
}

/** Datetimes in must carry an offset (contract, General). */
const instant = z.iso.datetime({ offset: true }).describe('ISO-8601 datetime with offset');
const label = z.string().trim().min(1).max(200).optional();

const weeklyWindow = z
  .object({
    id: z.uuid().optional(),
    label,
    kind: z.literal('weekly'),
    days: z
      .array(z.enum(DAYS))
      .min(1)
      .max(7)
      .refine((days) => new Set(days).size === days.length, 'days must not repeat'),
    start: wallClock,
    end: wallClock,
  })
  .strict()
  .superRefine((w, ctx) => {
    if (w.start === '24:00' || minutes(w.start) >= minutes(w.end)) {
      ctx.addIssue({ code: 'custom', path: ['end'], message: 'end must be after start' });
    }
  });

const onceWindow = z
  .object({ id: z.uuid().optional(), label, kind: z.literal('once'), start_at: instant, end_at: instant })
  .strict()
  .superRefine((w, ctx) => {
    if (Date.parse(w.end_at) <= Date.parse(w.start_at)) {
      ctx.addIssue({ code: 'custom', path: ['end_at'], message: 'end_at must be after start_at' });
    }
  });

export const noGoWindowInput = z.discriminatedUnion('kind', [weeklyWindow, onceWindow]);
export type NoGoWindowInput = z.infer<typeof noGoWindowInput>;

export const noGoWindowOut = z.union([
  z.object({
    id: z.uuid(),
    label: z.string().nullable(),
    kind: z.literal('weekly'),
    days: z.array(z.enum(DAYS)),
    start: z.string(),
    end: z.string(),
  }),
  z.object({
    id: z.uuid(),
    label: z.string().nullable(),
    kind: z.literal('once'),
    start_at: timestampOut(),
    end_at: timestampOut(),
  }),
]);
export type NoGoWindow = z.infer<typeof noGoWindowOut>;

/** The stored form: ids always set, once-window instants normalised to UTC with `Z`. */
export function toStoredWindow(input: NoGoWindowInput, id: string): NoGoWindow {
  if (input.kind === 'weekly') {
    return { id, label: input.label ?? null, kind: 'weekly', days: input.days, start: input.start, end: input.end };
  }
  return {
    id,
    label: input.label ?? null,
    kind: 'once',
    start_at: new Date(input.start_at).toISOString(),
    end_at: new Date(input.end_at).toISOString(),
  };
}

export const settingsPatchSchema = z
  .object({
    timezone: timezoneSchema.optional(),
    llm_provider_default: providerName.optional(),
    working_hours: workingHoursSchema.optional(),
    reminder_offset_min: z.number().int().min(0).max(10_080).optional(),
    buffer_min: z
      .number()
      .int()
      .min(0)
      .max(120)
      .optional()
      .describe(
        'minutes the solver keeps free between a task it places and other busy time (tasks of one block are not separated); overrides and manual slots ignore it',
      ),
  })
  .strict();
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

export const settingsOut = z.object({
  user_id: z.uuid(),
  timezone: z.string(),
  llm_provider_default: providerName,
  llm_provider_effective: providerName,
  working_hours: workingHoursOut,
  no_go_windows: z.array(noGoWindowOut),
  reminder_offset_min: z.number().int(),
  buffer_min: z.number().int(),
  created_at: timestampOut(),
  updated_at: timestampOut(),
  ignored: z.array(z.string()).optional(),
});
export type SettingsOut = z.infer<typeof settingsOut>;

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  WorkingHours: workingHoursOut,
  NoGoWindowCreate: noGoWindowInput,
  NoGoWindow: noGoWindowOut,
  SettingsPatch: settingsPatchSchema,
  Settings: settingsOut,
});
