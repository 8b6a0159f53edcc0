import { Temporal } from 'temporal-polyfill';
import type { Task } from '../api/queries.js';
import { longDay, mondayOf } from '../time/zone.js';

const HEAT_WEEKS = 12;

type Mark = 'done' | 'skipped' | 'missed' | 'open' | 'none';

/** The first day the heat map shows: the Monday 11 weeks before this week's. */
export function heatStart(today: Temporal.PlainDate): Temporal.PlainDate {
  return mondayOf(today).subtract({ weeks: HEAT_WEEKS - 1 });
}

function markOf(occurrence: Task | undefined, date: Temporal.PlainDate, today: Temporal.PlainDate): Mark {
  if (!occurrence) return 'none';
  if (occurrence.status === 'done') return 'done';
  if (occurrence.status === 'skipped' || occurrence.status === 'cancelled') return 'skipped';
  return Temporal.PlainDate.compare(date, today) < 0 ? 'missed' : 'open';
}

const WORDS: Record<Mark, string> = { done: 'done', skipped: 'skipped', missed: 'missed', open: 'to do', none: '' };

/**
 * The last 12 weeks of a routine, a column a week, a square a day: done, skipped or missed per occurrence.
 * Read as one image by a screen reader, with the counts as its name; each square's date and mark is its tooltip.
 */
export function HeatMap({ occurrences, today }: { occurrences: Task[]; today: Temporal.PlainDate }) {
  const byDate = new Map(occurrences.map((o) => [o.occurrence_date, o]));
  const start = heatStart(today);
  const counts = { done: 0, skipped: 0, missed: 0 };
  const weeks = Array.from({ length: HEAT_WEEKS }, (_, w) =>
    Array.from({ length: 7 }, (_, d) => {
      const date = start.add({ days: w * 7 + d });
      const future = Temporal.PlainDate.compare(date, today) > 0;
      const mark = future ? 'none' : markOf(byDate.get(date.toString()), date, today);
      if (mark === 'done' || mark === 'skipped' || mark === 'missed') counts[mark] += 1;
      return { date, mark };
    }),
  );
  const label = `Last 12 weeks: ${counts.done} done, ${counts.skipped} skipped, ${counts.missed} missed`;
  return (
    <div className="heatmap" role="img" aria-label={label}>
      {weeks.map((days) => (
        <div key={days[0]?.date.toString()} className="heat-week">
          {days.map(({ date, mark }) => (
            <span
              key={date.toString()}
              className="heat-day"
              data-mark={mark}
              title={mark === 'none' ? longDay(date) : `${longDay(date)}: ${WORDS[mark]}`}
            />
          ))}
        </div>
      ))}
    </div>
  );
}

export function HeatLegend() {
  return (
    <p className="heat-legend muted small" aria-hidden="true">
      <span className="heat-day" data-mark="done" /> done <span className="heat-day" data-mark="skipped" /> skipped{' '}
      <span className="heat-day" data-mark="missed" /> missed
    </p>
  );
}
