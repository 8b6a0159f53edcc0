import { Temporal } from 'temporal-polyfill';
import { describe, expect, it } from 'vitest';
import { wallAt } from '../src/time/wall.js';

const ZONES = ['America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/St_Johns', 'UTC'];

/** Temporal's reading of the same instant: the reference the fast path must agree with. */
function reference(ms: number, timeZone: string) {
  const z = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(timeZone);
  return { ms, year: z.year, month: z.month, day: z.day, hour: z.hour, minute: z.minute, dayOfWeek: z.dayOfWeek };
}

/** Every instant a zone changes its offset in 2026-2027, and a minute either side of each. */
function aroundTransitions(timeZone: string): number[] {
  const out: number[] = [];
  let at = Temporal.Instant.from('2026-01-01T00:00:00Z').toZonedDateTimeISO(timeZone);
  for (;;) {
    const next = at.getTimeZoneTransition('next');
    if (!next || next.year > 2027) return out;
    out.push(next.epochMilliseconds - 60_000, next.epochMilliseconds, next.epochMilliseconds + 60_000);
    at = next;
  }
}

describe('wall-clock readings agree with Temporal', () => {
  it.each(ZONES)('in %s, at every offset change of two years and a spread of other instants', (timeZone) => {
    const start = Date.parse('2026-01-01T00:00:00Z');
    const spread = Array.from({ length: 300 }, (_, i) => start + i * 7 * 3_600_000 + i * 60_000);
    for (const ms of [...aroundTransitions(timeZone), ...spread]) {
      expect(wallAt(ms, timeZone), new Date(ms).toISOString()).toEqual(reference(ms, timeZone));
    }
  });
});
