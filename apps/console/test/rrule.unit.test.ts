import { describe, expect, it } from 'vitest';
import { DEFAULT_SHAPE, ruleOf, ruleWeekdays, ruleWords, shapeOf, streakText } from '../src/routines/rrule.js';

describe('the routine rule builder writes and reads RRULEs', () => {
  it('writes each shape the form offers', () => {
    expect(ruleOf({ ...DEFAULT_SHAPE, repeats: 'daily' })).toBe('FREQ=DAILY');
    expect(ruleOf({ ...DEFAULT_SHAPE, repeats: 'weekdays' })).toBe('FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR');
    expect(ruleOf({ ...DEFAULT_SHAPE, repeats: 'weekly', days: ['TH', 'MO'] })).toBe('FREQ=WEEKLY;BYDAY=MO,TH');
    expect(ruleOf({ ...DEFAULT_SHAPE, repeats: 'every_n_weeks', interval: 3, days: ['SA'] })).toBe(
      'FREQ=WEEKLY;INTERVAL=3;BYDAY=SA',
    );
    expect(ruleOf({ ...DEFAULT_SHAPE, repeats: 'monthly_day', monthDay: 15 })).toBe('FREQ=MONTHLY;BYMONTHDAY=15');
    expect(ruleOf({ ...DEFAULT_SHAPE, repeats: 'monthly_nth', nth: -1, weekday: 'FR' })).toBe(
      'FREQ=MONTHLY;BYDAY=-1FR',
    );
    expect(ruleOf({ ...DEFAULT_SHAPE, repeats: 'custom' })).toBeUndefined();
  });

  it('reads a rule back into the same shape (a round trip), and a rule it cannot show as custom', () => {
    for (const rule of [
      'FREQ=DAILY',
      'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR',
      'FREQ=WEEKLY;BYDAY=MO,TH',
      'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU',
      'FREQ=MONTHLY;BYMONTHDAY=31',
      'FREQ=MONTHLY;BYDAY=2WE',
    ]) {
      expect(ruleOf(shapeOf(rule))).toBe(rule);
    }
    expect(shapeOf('RRULE:freq=weekly;byday=th,mo')).toMatchObject({ repeats: 'weekly', days: ['MO', 'TH'] });
    expect(shapeOf('FREQ=MONTHLY;BYDAY=MO;BYSETPOS=1').repeats).toBe('custom');
    expect(shapeOf('FREQ=DAILY;COUNT=5').repeats).toBe('custom');
    expect(shapeOf('FREQ=DAILY;INTERVAL=2').repeats).toBe('custom');
    expect(shapeOf('FREQ=MONTHLY;BYDAY=5MO').repeats).toBe('custom');
  });

  it('says a rule and a streak in words', () => {
    expect(ruleWords('FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH')).toBe('Every 2 weeks on Monday, Thursday');
    expect(ruleWords('FREQ=MONTHLY;BYDAY=-1FR')).toBe('Monthly on the last Friday');
    expect(ruleWords('FREQ=YEARLY')).toBe('FREQ=YEARLY');
    expect(streakText('Current', 4, 'FREQ=DAILY')).toBe('Current streak 4 days');
    expect(streakText('Current', 1, 'FREQ=DAILY')).toBe('Current streak 1 day');
    expect(streakText('Longest', 3, 'FREQ=WEEKLY;BYDAY=MO')).toBe('Longest streak 3 times in a row');
  });

  it('names the weekdays a rule can fall on (the heat map rows), none for a monthly or custom rule', () => {
    expect(ruleWeekdays('FREQ=DAILY')).toEqual(['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU']);
    expect(ruleWeekdays('FREQ=WEEKLY;BYDAY=TH,MO')).toEqual(['MO', 'TH']);
    expect(ruleWeekdays('FREQ=WEEKLY;INTERVAL=2;BYDAY=SA')).toEqual(['SA']);
    expect(ruleWeekdays('FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR')).toEqual(['MO', 'TU', 'WE', 'TH', 'FR']);
    expect(ruleWeekdays('FREQ=MONTHLY;BYMONTHDAY=15')).toBeUndefined();
    expect(ruleWeekdays('FREQ=DAILY;COUNT=5')).toBeUndefined();
  });
});
