import { describe, expect, it } from 'vitest';
import { isoFromPgText, isoTimestamp } from './task-model.js';

describe('isoTimestamp', () => {
  it('writes what toISOString writes', () => {
    const dates = [
      new Date(0),
      new Date(Date.UTC(1000, 0, 1)),
      new Date(Date.UTC(999, 11, 31, 23, 59, 59, 999)),
      new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999)),
      new Date(Date.UTC(10000, 0, 1)),
      new Date(Date.UTC(-1, 5, 15)),
      new Date('2026-11-24 04:12:00.123456+00'),
      new Date('2026-03-29T01:00:00.005Z'),
      new Date('2026-10-25T00:59:59.050Z'),
    ];
    // Plus a spread of instants over a few centuries with every millisecond width.
    for (let i = 0; i < 2000; i++) dates.push(new Date(-5e12 + i * 7_919_191_919 + (i % 1000)));
    for (const date of dates) expect(isoTimestamp(date)).toBe(date.toISOString());
  });

  it('throws like toISOString on an invalid date', () => {
    expect(() => isoTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('isoFromPgText', () => {
  it('writes what isoTimestamp writes of the Date parsed from the same text', () => {
    const texts = [
      '2026-11-25 17:06:01+00',
      '2026-11-25 17:06:01.7+00',
      '2026-11-25 17:06:01.78+00',
      '2026-11-25 17:06:01.789+00',
      '2026-11-25 17:06:01.7891+00',
      '2026-11-25 17:06:01.78912+00',
      '2026-11-25 17:06:01.999999+00',
      '2026-11-25 17:06:01.000001+00',
      '1000-01-01 00:00:00+00',
      '9999-12-31 23:59:59.999999+00',
      // Other shapes go through Date: another offset, a short year.
      '2026-11-25 18:06:01.5+01',
      '2026-11-25 12:36:01.25-04:30',
      '0999-12-31 23:59:59.5+00',
    ];
    for (let i = 0; i < 500; i++) {
      const date = new Date(-5e12 + i * 17_919_191_919 + (i % 1000));
      const micros = String(i % 1000).padStart(3, '0');
      texts.push(`${date.toISOString().slice(0, 23).replace('T', ' ')}${micros.slice(0, i % 4)}+00`);
    }
    for (const text of texts) expect(isoFromPgText(text), text).toBe(isoTimestamp(new Date(text)));
  });
});
