import { Temporal } from '@routinely/time';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CapturedTask, parseTaskText } from './parse-text.js';
import { capturedTaskSchema } from './task-fields.js';

// Thursday 2026-11-26, 12:00 in New York (17:00 UTC).
const NOW = new Date('2026-11-26T17:00:00Z');
const NEW_YORK = { now: NOW, timezone: 'America/New_York' };

/** What the builtin parser reads from each phrase, relative to NOW in New York. */
const PHRASES: [string, CapturedTask][] = [
  ['Call mom tomorrow 9am', { earliest_start_at: '2026-11-27T14:00:00.000Z', title: 'Call mom' }],
  [
    'Pay rent by Friday #home p1',
    { tags: ['home'], priority: 1, deadline_at: '2026-11-28T05:00:00.000Z', title: 'Pay rent' },
  ],
  [
    'Dentist next Monday at 3pm for 1h',
    { duration_min: 60, earliest_start_at: '2026-11-30T20:00:00.000Z', title: 'Dentist' },
  ],
  ['File taxes on 3 March !2', { priority: 2, earliest_start_at: '2027-03-03T05:00:00.000Z', title: 'File taxes' }],
  [
    'Gym daily at 7am 45 min',
    { duration_min: 45, recurrence: { rule: 'FREQ=DAILY', window: { start: '07:00', end: '07:45' } }, title: 'Gym' },
  ],
  [
    'Standup every weekday at 9:30 15m',
    {
      duration_min: 15,
      recurrence: { rule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR', window: { start: '09:30', end: '09:45' } },
      title: 'Standup',
    },
  ],
  [
    'Water plants every Monday and Thursday',
    { recurrence: { rule: 'FREQ=WEEKLY;BYDAY=MO,TH' }, title: 'Water plants' },
  ],
  ['Review budget every 2 weeks', { recurrence: { rule: 'FREQ=WEEKLY;INTERVAL=2' }, title: 'Review budget' }],
  ['Pay card every month on the 1st', { recurrence: { rule: 'FREQ=MONTHLY;BYMONTHDAY=1' }, title: 'Pay card' }],
  ['Team retro every last Friday', { recurrence: { rule: 'FREQ=MONTHLY;BYDAY=-1FR' }, title: 'Team retro' }],
  ['Read 1h30 #books', { tags: ['books'], duration_min: 90, title: 'Read' }],
  [
    'Write report for 2 hours by Dec 15',
    { duration_min: 120, deadline_at: '2026-12-16T05:00:00.000Z', title: 'Write report' },
  ],
  [
    'Meditate every morning 10 min',
    {
      duration_min: 10,
      recurrence: { rule: 'FREQ=DAILY', window: { start: '06:00', end: '12:00' } },
      title: 'Meditate',
    },
  ],
  ['Call back in 2 hours', { earliest_start_at: '2026-11-26T19:00:00.000Z', title: 'Call back' }],
  ['Buy milk', { title: 'Buy milk' }],
  [
    'Clean kitchen every day #chores p3',
    { tags: ['chores'], priority: 3, recurrence: { rule: 'FREQ=DAILY' }, title: 'Clean kitchen' },
  ],
  ['Submit expenses before next Wednesday 5pm', { deadline_at: '2026-12-02T22:00:00.000Z', title: 'Submit expenses' }],
  [
    'Plan week every Sunday evening',
    { recurrence: { rule: 'FREQ=WEEKLY;BYDAY=SU', window: { start: '18:00', end: '22:00' } }, title: 'Plan week' },
  ],
  ['Backup every other week', { recurrence: { rule: 'FREQ=WEEKLY;INTERVAL=2' }, title: 'Backup' }],
  ['Renew passport by 3 March 2027', { deadline_at: '2027-03-04T05:00:00.000Z', title: 'Renew passport' }],
  [
    'Run half an hour every weekday starting next Monday',
    {
      duration_min: 30,
      recurrence: { rule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR', starts_on: '2026-11-30' },
      title: 'Run',
    },
  ],
  [
    'Stretch every day in the morning',
    { recurrence: { rule: 'FREQ=DAILY', window: { start: '06:00', end: '12:00' } }, title: 'Stretch' },
  ],
  [
    'Journal every night at 10pm',
    { recurrence: { rule: 'FREQ=DAILY', window: { start: '22:00', end: '22:30' } }, title: 'Journal' },
  ],
  ['Laundry every Saturday', { recurrence: { rule: 'FREQ=WEEKLY;BYDAY=SA' }, title: 'Laundry' }],
  ['Pay bills every month on the 15th', { recurrence: { rule: 'FREQ=MONTHLY;BYMONTHDAY=15' }, title: 'Pay bills' }],
  ['Water the garden every weekend', { recurrence: { rule: 'FREQ=WEEKLY;BYDAY=SA,SU' }, title: 'Water the garden' }],
  ['Board meeting every first Monday', { recurrence: { rule: 'FREQ=MONTHLY;BYDAY=1MO' }, title: 'Board meeting' }],
  [
    'Dinner with family every Friday at 7pm for 2h',
    {
      duration_min: 120,
      recurrence: { rule: 'FREQ=WEEKLY;BYDAY=FR', window: { start: '19:00', end: '21:00' } },
      title: 'Dinner with family',
    },
  ],
  ['Call grandma every 3 days', { recurrence: { rule: 'FREQ=DAILY;INTERVAL=3' }, title: 'Call grandma' }],
  [
    'Check smoke alarms every 6 months',
    { recurrence: { rule: 'FREQ=MONTHLY;INTERVAL=6' }, title: 'Check smoke alarms' },
  ],
  [
    'Anniversary yearly on 14 June',
    { recurrence: { rule: 'FREQ=YEARLY', starts_on: '2027-06-14' }, title: 'Anniversary' },
  ],
  ['Vacuum weekly', { recurrence: { rule: 'FREQ=WEEKLY' }, title: 'Vacuum' }],
  [
    'Update timesheet every weekday by 5pm',
    {
      recurrence: { rule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR', window: { start: '16:30', end: '17:00' } },
      title: 'Update timesheet',
    },
  ],
  [
    'Gym every Mon, Wed and Fri at 6am',
    { recurrence: { rule: 'FREQ=WEEKLY;BYDAY=MO,WE,FR', window: { start: '06:00', end: '06:30' } }, title: 'Gym' },
  ],
  ['Groceries tomorrow', { earliest_start_at: '2026-11-27T05:00:00.000Z', title: 'Groceries' }],
  [
    'Email Bob next Tuesday 10:30am 20 min p2',
    { priority: 2, duration_min: 20, earliest_start_at: '2026-12-01T15:30:00.000Z', title: 'Email Bob' },
  ],
  [
    'Prepare slides by tomorrow noon for 90 min #work',
    { tags: ['work'], duration_min: 90, deadline_at: '2026-11-27T17:00:00.000Z', title: 'Prepare slides' },
  ],
  ['Lunch with Ana at 1pm', { earliest_start_at: '2026-11-26T18:00:00.000Z', title: 'Lunch with Ana' }],
  ['Doctor on 12/20 at 11am', { earliest_start_at: '2026-12-20T16:00:00.000Z', title: 'Doctor' }],
  ['Pick up kids at 3:15pm today', { earliest_start_at: '2026-11-26T20:15:00.000Z', title: 'Pick up kids' }],
  ['Finish book by the end of the month', { deadline_at: '2026-12-01T05:00:00.000Z', title: 'Finish book' }],
  ['Draft proposal in 3 days', { earliest_start_at: '2026-11-29T05:00:00.000Z', title: 'Draft proposal' }],
  ['Fix bug !1 #dev 25m', { tags: ['dev'], priority: 1, duration_min: 25, title: 'Fix bug' }],
  ['Call plumber priority 2', { priority: 2, title: 'Call plumber' }],
  [
    'Yoga for 45 minutes every Tuesday and Thursday evening',
    {
      duration_min: 45,
      recurrence: { rule: 'FREQ=WEEKLY;BYDAY=TU,TH', window: { start: '18:00', end: '22:00' } },
      title: 'Yoga',
    },
  ],
  ['Submit report due Friday', { deadline_at: '2026-11-28T05:00:00.000Z', title: 'Submit report' }],
  ['Pay invoice before Dec 1', { deadline_at: '2026-12-01T05:00:00.000Z', title: 'Pay invoice' }],
  [
    'Take out trash every Wednesday night',
    { recurrence: { rule: 'FREQ=WEEKLY;BYDAY=WE', window: { start: '20:00', end: '24:00' } }, title: 'Take out trash' },
  ],
  ['Mow lawn every other Saturday', { recurrence: { rule: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=SA' }, title: 'Mow lawn' }],
  [
    'Review PRs every weekday morning 30 min',
    {
      duration_min: 30,
      recurrence: { rule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR', window: { start: '06:00', end: '12:00' } },
      title: 'Review PRs',
    },
  ],
  [
    'Team sync every 2 Tuesdays at 11am',
    {
      recurrence: { rule: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU', window: { start: '11:00', end: '11:30' } },
      title: 'Team sync',
    },
  ],
  ['tomorrow 9am', { earliest_start_at: '2026-11-27T14:00:00.000Z' }],
  ['#home p1', { tags: ['home'], priority: 1 }],
  ['Cook dinner for an hour', { duration_min: 60, title: 'Cook dinner' }],
  [
    'Quarterly review every 3 months on the 1st',
    { recurrence: { rule: 'FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=1' }, title: 'Quarterly review' },
  ],
  ['Pay rent monthly on the 1st', { recurrence: { rule: 'FREQ=MONTHLY;BYMONTHDAY=1' }, title: 'Pay rent' }],
  [
    'Book flights by next Friday 6pm p1 #travel',
    { tags: ['travel'], priority: 1, deadline_at: '2026-12-04T23:00:00.000Z', title: 'Book flights' },
  ],
  ['Sleep 8h', { duration_min: 480, title: 'Sleep' }],
  ['Write blog post 1.5h #writing p4', { tags: ['writing'], priority: 4, duration_min: 90, title: 'Write blog post' }],
  [
    'Daily standup at 10am for 15 min',
    {
      duration_min: 15,
      recurrence: { rule: 'FREQ=DAILY', window: { start: '10:00', end: '10:15' } },
      title: 'standup',
    },
  ],
  [
    'Walk the dog every day at 7am and',
    { recurrence: { rule: 'FREQ=DAILY', window: { start: '07:00', end: '07:30' } }, title: 'Walk the dog' },
  ],
  ['Call the bank on Monday', { earliest_start_at: '2026-11-30T05:00:00.000Z', title: 'Call the bank' }],
  [
    'Stand-up every weekday at 09:15 #team',
    {
      tags: ['team'],
      recurrence: { rule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR', window: { start: '09:15', end: '09:45' } },
      title: 'Stand-up',
    },
  ],
  ['Clean gutters every 2 months', { recurrence: { rule: 'FREQ=MONTHLY;INTERVAL=2' }, title: 'Clean gutters' }],
  ['Payroll every last day of the month', { recurrence: { rule: 'FREQ=MONTHLY;BYMONTHDAY=-1' }, title: 'Payroll' }],
  ['Flu shot next month', { earliest_start_at: '2026-12-26T05:00:00.000Z', title: 'Flu shot' }],
  ['Plan vacation this weekend', { earliest_start_at: '2026-11-28T05:00:00.000Z', title: 'Plan vacation' }],
  ['Rent every month on the last day', { recurrence: { rule: 'FREQ=MONTHLY;BYMONTHDAY=-1' }, title: 'Rent' }],
];

describe('the builtin capture parser', () => {
  it('covers at least 60 phrases', () => {
    expect(PHRASES.length).toBeGreaterThanOrEqual(60);
  });

  it.each(PHRASES)('reads %j', (text, fields) => {
    expect(parseTaskText(text, NEW_YORK)).toEqual(fields);
  });

  it("reads dates in the user's timezone", () => {
    expect(parseTaskText('Call mom tomorrow 9am', { now: NOW, timezone: 'Europe/Berlin' })).toEqual({
      title: 'Call mom',
      earliest_start_at: '2026-11-27T08:00:00.000Z',
    });
    // 01:00 on Friday in Tokyo while it is still Thursday in UTC: "tomorrow" is Saturday there.
    expect(
      parseTaskText('Groceries tomorrow', { now: new Date('2026-11-26T16:00:00Z'), timezone: 'Asia/Tokyo' }),
    ).toEqual({
      title: 'Groceries',
      earliest_start_at: '2026-11-27T15:00:00.000Z',
    });
  });

  it('never fails, never keeps a tag or priority in the title, and keeps titles within 500 characters', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), (text) => {
        const fields = parseTaskText(`${text} #tag p2`, NEW_YORK);
        expect(fields.tags).toContain('tag');
        expect(fields.title ?? '').not.toMatch(/(^|\s)#tag\b/);
        expect((fields.title ?? '').length).toBeLessThanOrEqual(500);
      }),
      { numRuns: 200 },
    );
  });

  it('answers only what POST /tasks accepts: the edges of years, tags and windows stay in the title', () => {
    const today = Temporal.PlainDate.from('2026-11-26');
    expect(parseTaskText('Call bank in 7975 years', NEW_YORK)).toEqual({ title: 'Call bank in 7975 years' });
    expect(parseTaskText('task in 10000000 years', NEW_YORK)).toEqual({ title: 'task in 10000000 years' });
    expect(parseTaskText(`x #${'𝐀'.repeat(30)}`, NEW_YORK)).toEqual({ title: `x #${'𝐀'.repeat(30)}` });
    expect(parseTaskText('Gym every day by midnight', NEW_YORK).recurrence).toEqual({ rule: 'FREQ=DAILY' });
    const many = Array.from({ length: 25 }, (_, i) => `#t${i}`).join(' ');
    expect(parseTaskText(many, NEW_YORK).tags).toHaveLength(20);
    expect(parseTaskText(`${'a'.repeat(499)}😀`, NEW_YORK).title).toBe('a'.repeat(499));
    const words = fc.constantFrom('in', 'years', 'every', 'day', 'by', 'at', 'from', '1900', '9999', 'Dec 31', '#t');
    const piece = fc.oneof(words, fc.nat(10_000_000).map(String), fc.string({ unit: 'grapheme', maxLength: 6 }));
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 12 }), (pieces) => {
        const fields = parseTaskText(pieces.join(' '), NEW_YORK);
        expect(capturedTaskSchema(today).safeParse(fields).success, JSON.stringify(fields)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
