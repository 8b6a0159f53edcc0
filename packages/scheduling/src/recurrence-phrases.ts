/**
 * The recurrence phrases of the builtin capture parser, each turned into an RRULE value of the contract's subset
 * (and, for "every morning" and the like, a window). Written as a small table of patterns rather than handed to a
 * date parser: date parsers read "every Monday" as next Monday.
 */

const WEEKDAYS: Record<string, string> = {
  monday: 'MO',
  tuesday: 'TU',
  wednesday: 'WE',
  thursday: 'TH',
  friday: 'FR',
  saturday: 'SA',
  sunday: 'SU',
  mon: 'MO',
  tue: 'TU',
  tues: 'TU',
  wed: 'WE',
  thu: 'TH',
  thur: 'TH',
  thurs: 'TH',
  fri: 'FR',
  sat: 'SA',
  sun: 'SU',
};
const WEEKDAY = `(?:${Object.keys(WEEKDAYS)
  .sort((a, b) => b.length - a.length)
  .join('|')})s?`;
const ORDINALS: Record<string, number> = {
  first: 1,
  '1st': 1,
  second: 2,
  '2nd': 2,
  third: 3,
  '3rd': 3,
  fourth: 4,
  '4th': 4,
  fifth: 5,
  '5th': 5,
  last: -1,
};
const ORDINAL = `(?:${Object.keys(ORDINALS).join('|')})`;
const NUMBER_WORDS: Record<string, number> = { other: 2, two: 2, three: 3, four: 4, five: 5, six: 6 };
const UNITS: Record<string, string> = { day: 'DAILY', week: 'WEEKLY', month: 'MONTHLY', year: 'YEARLY' };

export interface RecurrencePhrase {
  rule: string;
  /** A part of the day the phrase named ("every morning"), as local `HH:MM`. */
  window?: { start: string; end: string };
  /** Where the phrase sits in the text, so the caller can cut it out of the title. */
  index: number;
  length: number;
}

export const PARTS_OF_DAY: Record<string, { start: string; end: string }> = {
  morning: { start: '06:00', end: '12:00' },
  afternoon: { start: '12:00', end: '18:00' },
  evening: { start: '18:00', end: '22:00' },
  night: { start: '20:00', end: '24:00' },
};

function weekdayCode(word: string): string {
  return WEEKDAYS[word.toLowerCase().replace(/s$/, '')] ?? WEEKDAYS[word.toLowerCase()] ?? 'MO';
}

function dayOfMonth(word: string): number {
  return word.toLowerCase() === 'last' ? -1 : Number.parseInt(word, 10);
}

/** Pattern, and what a match means. The first pattern that matches anywhere in the text wins. */
const PATTERNS: [RegExp, (m: RegExpExecArray) => Omit<RecurrencePhrase, 'index' | 'length'>][] = [
  [/\b(?:every|each) weekdays?\b|\bon weekdays\b|\bweekdays\b/i, () => ({ rule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR' })],
  [/\b(?:every|each) weekend\b|\bon weekends\b|\bweekends\b/i, () => ({ rule: 'FREQ=WEEKLY;BYDAY=SA,SU' })],
  [/\b(?:every|each|on the) last day of (?:the|every|each) month\b/i, () => ({ rule: 'FREQ=MONTHLY;BYMONTHDAY=-1' })],
  [
    new RegExp(`\\b(?:every|each) (${ORDINAL}) (${WEEKDAY})(?: of (?:the|every|each) month)?\\b`, 'i'),
    (m) => ({ rule: `FREQ=MONTHLY;BYDAY=${ORDINALS[(m[1] ?? '').toLowerCase()]}${weekdayCode(m[2] ?? '')}` }),
  ],
  [
    new RegExp(`\\b(?:on )?the (${ORDINAL}) (${WEEKDAY}) of (?:every|each) month\\b`, 'i'),
    (m) => ({ rule: `FREQ=MONTHLY;BYDAY=${ORDINALS[(m[1] ?? '').toLowerCase()]}${weekdayCode(m[2] ?? '')}` }),
  ],
  [
    /\b(?:every|each) month on the (\d{1,2}|last)(?:st|nd|rd|th)?(?: day)?(?: and (?:the )?(\d{1,2})(?:st|nd|rd|th)?)?\b|\bmonthly on the (\d{1,2}|last)(?:st|nd|rd|th)?(?: day)?\b|\b(?:on )?the (\d{1,2}|last)(?:st|nd|rd|th)?(?: day)? of (?:every|each) month\b/i,
    (m) => {
      const days = [m[1] ?? m[3] ?? m[4] ?? '1', m[2]].filter((d): d is string => d !== undefined).map(dayOfMonth);
      return { rule: `FREQ=MONTHLY;BYMONTHDAY=${days.join(',')}` };
    },
  ],
  [
    new RegExp(`\\b(?:every|each) (\\d{1,2}|other|two|three|four) (${WEEKDAY})\\b`, 'i'),
    (m) => {
      const raw = (m[1] ?? '2').toLowerCase();
      const interval = NUMBER_WORDS[raw] ?? Number.parseInt(raw, 10);
      const byDay = `BYDAY=${weekdayCode(m[2] ?? '')}`;
      return { rule: interval > 1 ? `FREQ=WEEKLY;INTERVAL=${interval};${byDay}` : `FREQ=WEEKLY;${byDay}` };
    },
  ],
  [
    new RegExp(`\\b(?:every|each) (${WEEKDAY}(?:(?:,| and|, and| &) ${WEEKDAY})*)\\b`, 'i'),
    (m) => {
      const words = (m[1] ?? '').split(/,| and| &/).map((w) => w.trim());
      const codes = [...new Set(words.filter(Boolean).map(weekdayCode))];
      return { rule: `FREQ=WEEKLY;BYDAY=${codes.join(',')}` };
    },
  ],
  [
    /\b(?:every|each) (\d{1,3}|other|two|three|four|five|six) (day|week|month|year)s?(?: on the (\d{1,2}|last)(?:st|nd|rd|th)?(?: day)?)?\b/i,
    (m) => {
      const raw = (m[1] ?? '2').toLowerCase();
      const interval = NUMBER_WORDS[raw] ?? Number.parseInt(raw, 10);
      const freq = UNITS[(m[2] ?? 'day').toLowerCase()] ?? 'DAILY';
      const parts = [`FREQ=${freq}`];
      if (interval > 1) parts.push(`INTERVAL=${interval}`);
      if (m[3] !== undefined && freq === 'MONTHLY') parts.push(`BYMONTHDAY=${dayOfMonth(m[3])}`);
      return { rule: parts.join(';') };
    },
  ],
  [
    /\b(?:every|each) (morning|afternoon|evening|night)\b/i,
    (m) => ({ rule: 'FREQ=DAILY', window: PARTS_OF_DAY[(m[1] ?? 'morning').toLowerCase()] }),
  ],
  [
    /\b(?:every|each) (day|week|month|year)\b|\b(daily|weekly|monthly|yearly|annually)\b/i,
    (m) => {
      const word = (m[1] ?? m[2] ?? 'day').toLowerCase();
      const freq =
        UNITS[word] ?? { daily: 'DAILY', weekly: 'WEEKLY', monthly: 'MONTHLY', yearly: 'YEARLY' }[word] ?? 'YEARLY';
      return { rule: `FREQ=${freq}` };
    },
  ],
];

/** The first recurrence phrase of the text, or undefined when it names none. */
export function findRecurrencePhrase(text: string): RecurrencePhrase | undefined {
  for (const [pattern, meaning] of PATTERNS) {
    const match = pattern.exec(text);
    if (match) return { ...meaning(match), index: match.index, length: match[0].length };
  }
  return undefined;
}
