import { parseTaskText } from '@routinely/scheduling';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Harness, startHarness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  h.clock.set('2026-11-26T17:00:00Z');
});
afterAll(() => h?.close());

/** Words the builtin parser reads, numbers from 0 to ten million, and the edges of what a task may carry. */
const WORDS = [
  'in',
  'years',
  'year',
  'days',
  'weeks',
  'months',
  'hours',
  'every',
  'day',
  'weekday',
  'Monday',
  'and',
  'Friday',
  'by',
  'before',
  'at',
  'on',
  'from',
  'starting',
  'until',
  'due',
  'tomorrow',
  'next',
  'last',
  'the',
  'of',
  'month',
  'morning',
  'evening',
  'night',
  'noon',
  'midnight',
  'am',
  'pm',
  'for',
  'h',
  'min',
  'minutes',
  'half an hour',
  'p1',
  '!5',
  'priority 3',
  '#home',
  `#${'a'.repeat(50)}`,
  `#${'a'.repeat(51)}`,
  `#${'𝐀'.repeat(30)}`,
  'Dec 31',
  'March 3',
  '1900',
  '1969',
  '1970',
  '2020',
  '9999',
  '10000',
  '31/12/9999',
  'Call bank',
  'task',
  ',',
  '-',
  ':',
];
const word = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...WORDS) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 10_000_000 }).map(String) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
);
/** Texts `POST /tasks/parse` and `raw_input` accept: 1..2000 characters, no NUL, no half surrogate pair. */
const text = fc
  .oneof(
    fc.array(word, { minLength: 1, maxLength: 14 }).map((words) => words.join(' ')),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 600 }),
    fc.array(fc.constantFrom('#tag', '#x', 'a', '𝐀'), { minLength: 100, maxLength: 700 }).map((s) => s.join('')),
  )
  .map((value) => value.replaceAll('\u0000', ' ').slice(0, 2000))
  .filter((value) => value.trim().length > 0 && !/[\uD800-\uDBFF]$/.test(value));
const timezone = fc.constantFrom('UTC', 'America/Los_Angeles', 'Pacific/Kiritimati', 'Pacific/Pago_Pago');

describe('capture from text and POST /tasks keep to one rule', () => {
  it('"task in 100000 years" and "Call bank in 7975 years" are created from raw_input, and their parse is accepted', async () => {
    const user = h.tokens.user();
    for (const raw of ['task in 100000 years', 'Call bank in 7975 years', 'task in 10000000 years']) {
      const fields = parseTaskText(raw, { now: h.clock.now(), timezone: 'UTC' });
      // Not understood, so still the title: no date past year 9999 is answered.
      expect(fields, raw).toEqual({ title: raw });
      const created = await call(h, user, 'POST', '/service/tasks', { raw_input: raw });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json()).toMatchObject({ title: raw, deadline_at: null, earliest_start_at: null });
    }
  });

  it('refuses instants outside years 1970..9999 (in UTC) as 422 naming the field, never 500', async () => {
    const user = h.tokens.user();
    for (const deadline of ['9999-12-31T23:00:00-05:00', '0001-01-01T00:00:00Z', '1969-12-31T23:59:59Z']) {
      const res = await call(h, user, 'POST', '/service/tasks', { title: 'x', deadline_at: deadline });
      expect(res.statusCode, `${deadline}: ${res.body}`).toBe(422);
      expect(res.json().errors[0].loc).toEqual(['body', 'deadline_at']);
    }
  });

  it('for any text, the builtin parse sent as a create body is accepted, and so is the text as raw_input', async () => {
    const user = h.tokens.user();
    await fc.assert(
      fc.asyncProperty(text, timezone, async (raw, zone) => {
        const fields = parseTaskText(raw, { now: h.clock.now(), timezone: zone });
        const sent = await call(h, user, 'POST', '/service/tasks', { title: 'untitled', ...fields });
        expect(sent.statusCode, `${JSON.stringify(fields)}: ${sent.body}`).toBe(201);
        const captured = await call(h, user, 'POST', '/service/tasks', { raw_input: raw });
        if (fields.title === undefined) {
          // Nothing left for a title: the one refusal raw_input alone may get.
          expect(captured.statusCode, captured.body).toBe(422);
          expect(captured.json().errors[0].loc).toEqual(['body', 'title']);
        } else {
          expect(captured.statusCode, `${JSON.stringify(raw)}: ${captured.body}`).toBe(201);
        }
      }),
      { numRuns: 150 },
    );
  });
});
