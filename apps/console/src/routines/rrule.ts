/**
 * The routine form's rule builder: the shapes a person picks from ("Repeats") and the RFC 5545 RRULE each one
 * writes. A rule the builder cannot show (BYSETPOS, COUNT, several BYMONTHDAY values...) stays as typed in the
 * raw field ("custom"); the server is the judge of a raw rule's validity (422 on the field).
 */
export const BYDAY = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
export type ByDay = (typeof BYDAY)[number];

export type Repeats = 'daily' | 'weekdays' | 'weekly' | 'every_n_weeks' | 'monthly_day' | 'monthly_nth' | 'custom';

export const REPEATS: { value: Repeats; label: string }[] = [
  { value: 'daily', label: 'Every day' },
  { value: 'weekdays', label: 'Every weekday (Monday to Friday)' },
  { value: 'weekly', label: 'Weekly on chosen days' },
  { value: 'every_n_weeks', label: 'Every N weeks on chosen days' },
  { value: 'monthly_day', label: 'Monthly on a day of the month' },
  { value: 'monthly_nth', label: 'Monthly on the nth weekday' },
  { value: 'custom', label: 'Custom rule (RFC 5545)' },
];

export interface RuleShape {
  repeats: Repeats;
  days: ByDay[];
  interval: number;
  monthDay: number;
  /** 1..4, or -1 for the last. */
  nth: number;
  weekday: ByDay;
}

export const DEFAULT_SHAPE: RuleShape = {
  repeats: 'daily',
  days: ['MO'],
  interval: 2,
  monthDay: 1,
  nth: 1,
  weekday: 'MO',
};

const WEEKDAYS: ByDay[] = ['MO', 'TU', 'WE', 'TH', 'FR'];
const ordered = (days: readonly ByDay[]) => BYDAY.filter((d) => days.includes(d));

/** The RRULE value (without `RRULE:`) the shape stands for; `undefined` for "custom" (the raw text is the rule). */
export function ruleOf(shape: RuleShape): string | undefined {
  const days = ordered(shape.days).join(',');
  switch (shape.repeats) {
    case 'daily':
      return 'FREQ=DAILY';
    case 'weekdays':
      return `FREQ=WEEKLY;BYDAY=${WEEKDAYS.join(',')}`;
    case 'weekly':
      return `FREQ=WEEKLY;BYDAY=${days}`;
    case 'every_n_weeks':
      return `FREQ=WEEKLY;INTERVAL=${shape.interval};BYDAY=${days}`;
    case 'monthly_day':
      return `FREQ=MONTHLY;BYMONTHDAY=${shape.monthDay}`;
    case 'monthly_nth':
      return `FREQ=MONTHLY;BYDAY=${shape.nth}${shape.weekday}`;
    case 'custom':
      return undefined;
  }
}

/** Reads a rule back into the builder's shape when the builder can show it exactly, else "custom". */
export function shapeOf(rule: string): RuleShape {
  const parts = new Map<string, string>();
  for (const part of rule
    .trim()
    .replace(/^RRULE:/i, '')
    .split(';')) {
    const [key, value] = part.split('=');
    if (key && value !== undefined) parts.set(key.toUpperCase(), value.toUpperCase());
  }
  const custom: RuleShape = { ...DEFAULT_SHAPE, repeats: 'custom' };
  const freq = parts.get('FREQ');
  const interval = Number(parts.get('INTERVAL') ?? '1');
  const byDay = parts.get('BYDAY')?.split(',') ?? [];
  const known = new Set(['FREQ', 'INTERVAL', 'BYDAY', 'BYMONTHDAY', 'WKST']);
  if ([...parts.keys()].some((k) => !known.has(k)) || !Number.isInteger(interval) || interval < 1) return custom;
  const plainDays = byDay.every((d): d is ByDay => (BYDAY as readonly string[]).includes(d));

  if (freq === 'DAILY' && interval === 1 && byDay.length === 0 && !parts.has('BYMONTHDAY')) {
    return { ...DEFAULT_SHAPE, repeats: 'daily' };
  }
  if (freq === 'WEEKLY' && byDay.length > 0 && plainDays && !parts.has('BYMONTHDAY')) {
    const days = ordered(byDay as ByDay[]);
    if (interval > 1) return { ...DEFAULT_SHAPE, repeats: 'every_n_weeks', interval, days };
    if (days.join(',') === WEEKDAYS.join(',')) return { ...DEFAULT_SHAPE, repeats: 'weekdays', days };
    return { ...DEFAULT_SHAPE, repeats: 'weekly', days };
  }
  if (freq === 'MONTHLY' && interval === 1) {
    const monthDay = Number(parts.get('BYMONTHDAY'));
    if (byDay.length === 0 && Number.isInteger(monthDay) && monthDay >= 1 && monthDay <= 31) {
      return { ...DEFAULT_SHAPE, repeats: 'monthly_day', monthDay };
    }
    const nth = /^(-1|[1-4])(MO|TU|WE|TH|FR|SA|SU)$/.exec(byDay[0] ?? '');
    if (!parts.has('BYMONTHDAY') && byDay.length === 1 && nth?.[1] && nth[2]) {
      return { ...DEFAULT_SHAPE, repeats: 'monthly_nth', nth: Number(nth[1]), weekday: nth[2] as ByDay };
    }
  }
  return custom;
}

/**
 * The weekdays a rule can fall on (Monday first), for the heat map's rows: every day for a daily rule, the
 * chosen days for a weekly one; `undefined` for a monthly or custom rule, whose days are no fixed weekdays.
 */
export function ruleWeekdays(rule: string): ByDay[] | undefined {
  const shape = shapeOf(rule);
  if (shape.repeats === 'daily') return [...BYDAY];
  if (shape.repeats === 'weekdays' || shape.repeats === 'weekly' || shape.repeats === 'every_n_weeks') {
    return shape.days;
  }
  return undefined;
}

const DAY_NAMES: Record<ByDay, string> = {
  MO: 'Monday',
  TU: 'Tuesday',
  WE: 'Wednesday',
  TH: 'Thursday',
  FR: 'Friday',
  SA: 'Saturday',
  SU: 'Sunday',
};
export const dayName = (day: ByDay) => DAY_NAMES[day];
export const NTH = [
  { value: 1, label: 'first' },
  { value: 2, label: 'second' },
  { value: 3, label: 'third' },
  { value: 4, label: 'fourth' },
  { value: -1, label: 'last' },
];

const list = (days: readonly ByDay[]) => ordered(days).map(dayName).join(', ');

/** A rule in words for the list ("Every weekday", "Every 2 weeks on Monday, Thursday"); the raw rule otherwise. */
export function ruleWords(rule: string): string {
  const shape = shapeOf(rule);
  switch (shape.repeats) {
    case 'daily':
      return 'Every day';
    case 'weekdays':
      return 'Every weekday';
    case 'weekly':
      return `Weekly on ${list(shape.days)}`;
    case 'every_n_weeks':
      return `Every ${shape.interval} weeks on ${list(shape.days)}`;
    case 'monthly_day':
      return `Monthly on day ${shape.monthDay}`;
    case 'monthly_nth':
      return `Monthly on the ${NTH.find((n) => n.value === shape.nth)?.label} ${dayName(shape.weekday)}`;
    case 'custom':
      return rule;
  }
}

/** What a streak counts in: days for a daily routine, otherwise occurrences in a row. */
export function streakText(kind: 'Current' | 'Longest', count: number, rule: string): string {
  const daily = shapeOf(rule).repeats === 'daily';
  const unit = daily ? (count === 1 ? 'day' : 'days') : count === 1 ? 'time in a row' : 'times in a row';
  return `${kind} streak ${count} ${unit}`;
}
