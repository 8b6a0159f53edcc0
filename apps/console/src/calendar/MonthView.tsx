import { useMemo } from 'react';
import { Link } from 'react-router';
import type { Temporal } from 'temporal-polyfill';
import type { CalendarEvent } from '../api/queries.js';
import { hhmm, longDay, WEEKDAYS, zoned } from '../time/zone.js';
import { allDayByDay, layoutDays } from './layout.js';
import { slotName } from './names.js';

const SHOWN = 3;

/** A month as weeks of days, each with its first few events and a link to the day for the rest. */
export function MonthView({
  days,
  month,
  events,
  timeZone,
  onOpen,
}: {
  days: Temporal.PlainDate[];
  month: number;
  events: CalendarEvent[];
  timeZone: string;
  onOpen(taskId: string): void;
}) {
  const perDay = useMemo(() => {
    const timed = layoutDays(events, days, timeZone);
    const allDay = allDayByDay(events, days, timeZone);
    return days.map((_, i) => [
      ...(allDay[i] ?? []).map((event) => ({ event, time: '', name: `${event.title}, all day` })),
      ...(timed[i] ?? [])
        .sort((a, b) => a.top - b.top)
        .map((s) => ({ event: s.event, time: hhmm(s.start), name: slotName(s.event.title, s.start, s.end) })),
    ]);
  }, [events, days, timeZone]);
  const weeks = Array.from({ length: days.length / 7 }, (_, w) => days.slice(w * 7, w * 7 + 7));
  const today = zoned(new Date().toISOString(), timeZone).toPlainDate();
  return (
    <div className="month" role="grid" aria-label="Month">
      <div role="row" className="month-row month-head">
        {WEEKDAYS.map((d) => (
          <div role="columnheader" key={d} aria-label={d}>
            {d.slice(0, 3)}
          </div>
        ))}
      </div>
      {weeks.map((week) => (
        <div role="row" className="month-row" key={week[0]?.toString()}>
          {week.map((day) => {
            const index = days.findIndex((d) => d.equals(day));
            const items = perDay[index] ?? [];
            const classes = ['month-cell'];
            if (day.month !== month) classes.push('other-month');
            if (day.equals(today)) classes.push('is-today');
            return (
              <div role="gridcell" key={day.toString()} className={classes.join(' ')}>
                <Link className="month-day" to={`/calendar/day/${day.toString()}`} aria-label={`Open ${longDay(day)}`}>
                  {day.day}
                </Link>
                {items.slice(0, SHOWN).map(({ event, time, name }) => (
                  <button
                    type="button"
                    key={event.id}
                    className={`month-event ${event.source !== 'task' ? 'external' : ''} ${event.status === 'done' ? 'done' : ''}`}
                    aria-label={name}
                    data-time={time || undefined}
                    onClick={() => event.task_id && onOpen(event.task_id)}
                  >
                    {event.title}
                  </button>
                ))}
                {items.length > SHOWN && (
                  <Link className="month-more" to={`/calendar/day/${day.toString()}`}>
                    {items.length - SHOWN} more
                  </Link>
                )}
              </div>
            );
          })}
        </div>
      ))}
    </div>
  );
}
