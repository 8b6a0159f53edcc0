/**
 * Wall-clock readings of instants in a timezone, fast enough for every block of a busy week on each render
 * (the Temporal polyfill takes a fraction of a millisecond per conversion; 500 blocks took most of a frame
 * budget). The offset comes from Intl once per zone and quarter hour, then plain UTC arithmetic does the rest;
 * the unit tests hold it to Temporal's answers around daylight-saving changes.
 */
export interface Wall {
  /** The instant, ms since the epoch. */
  ms: number;
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  /** 1 = Monday .. 7 = Sunday (ISO). */
  dayOfWeek: number;
}

/** Offsets change on quarter hours of UTC (in every zone in use): one Intl reading per zone and quarter hour. */
const BUCKET_MS = 15 * 60_000;
const offsets = new Map<string, Map<number, number>>();
const formatters = new Map<string, Intl.DateTimeFormat>();

function readOffset(ms: number, timeZone: string): number {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    formatters.set(timeZone, format);
  }
  const name = format.formatToParts(ms).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  if (!m) return 0;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/** The zone's offset from UTC at an instant, in minutes. */
function offsetMinutes(ms: number, timeZone: string): number {
  let zone = offsets.get(timeZone);
  if (!zone) {
    zone = new Map();
    offsets.set(timeZone, zone);
  }
  const key = Math.floor(ms / BUCKET_MS);
  let offset = zone.get(key);
  if (offset === undefined) {
    offset = readOffset(key * BUCKET_MS, timeZone);
    zone.set(key, offset);
  }
  return offset;
}

export function wallAt(ms: number, timeZone: string): Wall {
  const local = new Date(ms + offsetMinutes(ms, timeZone) * 60_000);
  return {
    ms,
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    dayOfWeek: ((local.getUTCDay() + 6) % 7) + 1,
  };
}

export function wallOf(iso: string, timeZone: string): Wall {
  return wallAt(Date.parse(iso), timeZone);
}

export function sameDay(a: Wall, b: Wall): boolean {
  return a.year === b.year && a.month === b.month && a.day === b.day;
}
