import { describe, expect, it } from 'vitest';
import { instantOf, UnknownTimeZone, zonedWallTimeToUtc } from './zoned-time.js';

const utc = (wall: string, zone: string) => zonedWallTimeToUtc(wall, zone).toISOString();

describe('wall-clock times read in the named zone', () => {
  it('maps Windows zone names and IANA names alike', () => {
    expect(utc('2026-11-23T09:00:00.0000000', 'Pacific Standard Time')).toBe('2026-11-23T17:00:00.000Z');
    expect(utc('2026-07-01T09:00:00.0000000', 'Pacific Standard Time')).toBe('2026-07-01T16:00:00.000Z');
    expect(utc('2026-11-23T09:00:00', 'Asia/Kolkata')).toBe('2026-11-23T03:30:00.000Z');
    expect(utc('2026-11-23', 'UTC')).toBe('2026-11-23T00:00:00.000Z');
  });

  it('puts a wall time inside a DST gap after the jump and takes the first of a repeated hour', () => {
    expect(utc('2026-03-29T02:30:00', 'Europe/Berlin')).toBe('2026-03-29T01:30:00.000Z');
    expect(utc('2026-10-25T02:30:00', 'Europe/Berlin')).toBe('2026-10-25T00:30:00.000Z');
  });

  it('keeps an explicit offset and refuses unknown zones', () => {
    expect(instantOf('2026-11-23T09:00:00+05:30', 'Europe/Berlin').toISOString()).toBe('2026-11-23T03:30:00.000Z');
    expect(() => zonedWallTimeToUtc('2026-11-23T09:00:00', 'Mars Standard Time')).toThrow(UnknownTimeZone);
  });
});
