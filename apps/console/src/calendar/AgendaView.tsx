import { useMemo } from 'react';
import type { Temporal } from 'temporal-polyfill';
import type { CalendarEvent } from '../api/queries.js';
import { hhmm, longDay } from '../time/zone.js';
import { allDayByDay, layoutDays } from './layout.js';
import { providerName, slotName } from './names.js';

/** The next 30 days as a list, day by day, leaving out empty days. */
export function AgendaView({
  days,
  events,
  timeZone,
  onOpen,
}: {
  days: Temporal.PlainDate[];
  events: CalendarEvent[];
  timeZone: string;
  onOpen(taskId: string): void;
}) {
  const groups = useMemo(() => {
    const timed = layoutDays(events, days, timeZone);
    const allDay = allDayByDay(events, days, timeZone);
    return days
      .map((day, i) => ({
        day,
        allDay: allDay[i] ?? [],
        timed: (timed[i] ?? []).sort((a, b) => a.top - b.top),
      }))
      .filter((g) => g.allDay.length + g.timed.length > 0);
  }, [events, days, timeZone]);
  if (groups.length === 0) return <p className="muted agenda-empty">Nothing on the calendar in these 30 days.</p>;
  return (
    <div className="agenda">
      {groups.map((group) => (
        <section key={group.day.toString()} aria-labelledby={`agenda-${group.day.toString()}`}>
          <h2 id={`agenda-${group.day.toString()}`}>{longDay(group.day)}</h2>
          <ul>
            {group.allDay.map((event) => (
              <li key={event.id}>
                <span className="agenda-time">All day</span>
                <span className="agenda-title">{event.title}</span>
              </li>
            ))}
            {group.timed.map((s) => (
              <li key={s.event.id} className={s.event.status === 'done' ? 'done' : ''}>
                <span className="agenda-time">
                  {hhmm(s.start)} – {hhmm(s.end)}
                </span>
                {s.event.source === 'task' && s.event.task_id ? (
                  <button
                    type="button"
                    className="agenda-title link"
                    aria-label={slotName(s.event.title, s.start, s.end)}
                    onClick={() => s.event.task_id && onOpen(s.event.task_id)}
                  >
                    {s.event.title}
                  </button>
                ) : (
                  <span className="agenda-title">
                    {s.event.title} <span className="muted small">({providerName(s.event)}, read-only)</span>
                  </span>
                )}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
