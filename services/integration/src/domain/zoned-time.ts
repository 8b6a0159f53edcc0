/**
 * Wall-clock times without an offset (Graph's `{ dateTime, timeZone }`, Google all-day dates) read in the zone
 * the provider named, never in the server's own zone. What is the provider's here: Windows zone names and its
 * text forms; the reading itself is @routinely/time's.
 */
import { instantOfWallClock, isValidTimeZone, Temporal } from '@routinely/time';

/** Windows zone names Graph uses, to IANA (the common ones; IANA names pass through unchanged). */
const WINDOWS_ZONES: Record<string, string> = {
  UTC: 'UTC',
  'Coordinated Universal Time': 'UTC',
  'tzone://Microsoft/Utc': 'UTC',
  'Greenwich Standard Time': 'Atlantic/Reykjavik',
  'GMT Standard Time': 'Europe/London',
  'W. Europe Standard Time': 'Europe/Berlin',
  'Romance Standard Time': 'Europe/Paris',
  'Central Europe Standard Time': 'Europe/Budapest',
  'Central European Standard Time': 'Europe/Warsaw',
  'E. Europe Standard Time': 'Europe/Chisinau',
  'FLE Standard Time': 'Europe/Kiev',
  'GTB Standard Time': 'Europe/Bucharest',
  'Russian Standard Time': 'Europe/Moscow',
  'Eastern Standard Time': 'America/New_York',
  'Central Standard Time': 'America/Chicago',
  'Mountain Standard Time': 'America/Denver',
  'US Mountain Standard Time': 'America/Phoenix',
  'Pacific Standard Time': 'America/Los_Angeles',
  'Alaskan Standard Time': 'America/Anchorage',
  'Hawaiian Standard Time': 'Pacific/Honolulu',
  'Atlantic Standard Time': 'America/Halifax',
  'E. South America Standard Time': 'America/Sao_Paulo',
  'India Standard Time': 'Asia/Kolkata',
  'China Standard Time': 'Asia/Shanghai',
  'Tokyo Standard Time': 'Asia/Tokyo',
  'Korea Standard Time': 'Asia/Seoul',
  'Singapore Standard Time': 'Asia/Singapore',
  'AUS Eastern Standard Time': 'Australia/Sydney',
  'New Zealand Standard Time': 'Pacific/Auckland',
  'South Africa Standard Time': 'Africa/Johannesburg',
  'Arabian Standard Time': 'Asia/Dubai',
};

export class UnknownTimeZone extends Error {
  constructor(zone: string) {
    super(`unknown time zone ${zone}`);
    this.name = 'UnknownTimeZone';
  }
}

function ianaZone(zone: string | undefined | null): string {
  if (!zone) return 'UTC';
  const mapped = WINDOWS_ZONES[zone] ?? zone;
  if (!isValidTimeZone(mapped)) throw new UnknownTimeZone(zone);
  return mapped;
}

const WALL = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?$/;

/**
 * `2026-11-21T09:00:00.0000000` (or a bare date, midnight) in `zone` as a UTC instant. A wall time skipped by a
 * DST jump lands after the jump; a repeated one takes its first occurrence.
 */
export function zonedWallTimeToUtc(wall: string, zone: string | undefined | null): Date {
  const match = WALL.exec(wall.trim());
  if (!match) throw new RangeError(`not a wall-clock time: ${wall}`);
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '0'] = match;
  const ms = Number(frac.slice(0, 3).padEnd(3, '0'));
  const wallClock = new Temporal.PlainDateTime(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s), ms);
  return instantOfWallClock(wallClock, ianaZone(zone));
}

/** An ISO datetime: with an offset it is an instant; without one it is read in `zone`. */
export function instantOf(value: string, zone: string | undefined | null): Date {
  if (/(Z|[+-]\d{2}:?\d{2})$/i.test(value)) {
    const at = Date.parse(value);
    if (Number.isNaN(at)) throw new RangeError(`not a datetime: ${value}`);
    return new Date(at);
  }
  return zonedWallTimeToUtc(value, zone);
}
