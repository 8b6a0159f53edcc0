import { describe, expect, it } from 'vitest';
import { isValidTimeZone, wallTimeOf, zoneOffsetMs } from './zoned-time.js';

describe('zoned time', () => {
  it('reads wall times and offsets of an IANA zone on both sides of a DST change', () => {
    expect(isValidTimeZone('Europe/Berlin')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    const before = new Date('2027-03-27T08:00:00.250Z');
    expect(wallTimeOf(before, 'Europe/Berlin')).toEqual({
      year: 2027,
      month: 3,
      day: 27,
      hour: 9,
      minute: 0,
      second: 0,
      ms: 250,
    });
    expect(zoneOffsetMs(before, 'Europe/Berlin')).toBe(3_600_000);
    expect(zoneOffsetMs(new Date('2027-03-29T08:00:00Z'), 'Europe/Berlin')).toBe(7_200_000);
    expect(zoneOffsetMs(new Date('2027-03-29T08:00:00Z'), 'Asia/Kolkata')).toBe(19_800_000);
  });
});
