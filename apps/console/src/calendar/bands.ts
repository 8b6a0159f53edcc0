import type { Temporal } from 'temporal-polyfill';
import type { Settings } from '../api/queries.js';
import { type Wall, wallOf } from '../time/wall.js';
import { dayStart, WEEKDAY_KEYS } from '../time/zone.js';

const minutesOfDay = (w: Wall) => w.hour * 60 + w.minute;

/** A stretch of one day in wall-clock minutes, with a label for no-go windows. */
export interface Band {
  top: number;
  bottom: number;
  label?: string;
}

const minutesOf = (hhmm: string) => {
  const [h, m] = hhmm.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
};

/** Working hours of each shown day (wall clock, so 09:00-17:00 stays put on a daylight-saving day). */
export function workingBands(settings: Settings, days: readonly Temporal.PlainDate[]): Band[][] {
  return days.map((day) => {
    const key = WEEKDAY_KEYS[day.dayOfWeek - 1];
    const intervals = key ? settings.working_hours[key] : [];
    return intervals.map((i) => ({ top: minutesOf(i.start), bottom: minutesOf(i.end) }));
  });
}

/** No-go windows of each shown day: weekly ones by weekday, one-off ones clipped to the day. */
export function noGoBands(settings: Settings, days: readonly Temporal.PlainDate[], timeZone: string): Band[][] {
  return days.map((day) => {
    const key = WEEKDAY_KEYS[day.dayOfWeek - 1];
    const from = dayStart(day, timeZone).epochMilliseconds;
    const to = dayStart(day.add({ days: 1 }), timeZone).epochMilliseconds;
    const bands: Band[] = [];
    for (const w of settings.no_go_windows) {
      const label = w.label ?? 'No-go';
      if ('days' in w) {
        if (key && w.days.includes(key)) bands.push({ top: minutesOf(w.start), bottom: minutesOf(w.end), label });
        continue;
      }
      const s = Date.parse(w.start_at);
      const e = Date.parse(w.end_at);
      if (e <= from || s >= to) continue;
      bands.push({
        top: s <= from ? 0 : minutesOfDay(wallOf(w.start_at, timeZone)),
        bottom: e >= to ? 1440 : minutesOfDay(wallOf(w.end_at, timeZone)),
        label,
      });
    }
    return bands;
  });
}
