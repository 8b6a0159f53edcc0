import { Temporal } from 'temporal-polyfill';
import type { Task } from '../api/queries.js';
import { longDay, mondayOf } from '../time/zone.js';
import { BYDAY, dayName, ruleWeekdays } from './rrule.js';

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

function Square({ date, mark }: { date: Temporal.PlainDate; mark: Mark }) {
  return (
    <span
      className="heat-day"
      data-mark={mark}
      title={mark === 'none' ? longDay(date) : `${longDay(date)}: ${WORDS[mark]}`}
    />
  );
}

/**
 * The last 12 weeks of a routine: done, skipped or missed per occurrence. A rule on fixed weekdays gets a column
 * a week and a row for each weekday it can fall on (a weekly routine on Monday and Thursday has two rows, not
 * seven); a monthly or custom rule gets one square per occurrence in date order. Read as one image by a screen
 * reader, with the counts as its name; each square's date and mark is its tooltip.
 */
export function HeatMap({
  occurrences,
  rule,
  today,
}: {
  occurrences: Task[];
  rule: string;
  today: Temporal.PlainDate;
}) {
  const byDate = new Map(occurrences.map((o) => [o.occurrence_date, o]));
  const start = heatStart(today);
  const counts = { done: 0, skipped: 0, missed: 0 };
  const markOn = (date: Temporal.PlainDate): Mark => {
    const future = Temporal.PlainDate.compare(date, today) > 0;
    const mark = future ? 'none' : markOf(byDate.get(date.toString()), date, today);
    if (mark === 'done' || mark === 'skipped' || mark === 'missed') counts[mark] += 1;
    return mark;
  };
  const rows = ruleWeekdays(rule)?.map((day) => ({ day, offset: BYDAY.indexOf(day) }));
  const body = rows ? (
    <>
      <div className="heat-week heat-labels">
        {rows.map(({ day }) => (
          <span key={day} className="heat-label">
            {dayName(day).slice(0, 3)}
          </span>
        ))}
      </div>
      {Array.from({ length: HEAT_WEEKS }, (_, w) => {
        const monday = start.add({ weeks: w });
        return (
          <div key={monday.toString()} className="heat-week">
            {rows.map(({ day, offset }) => {
              const date = monday.add({ days: offset });
              return <Square key={day} date={date} mark={markOn(date)} />;
            })}
          </div>
        );
      })}
    </>
  ) : (
    <div className="heat-strip">
      {occurrences
        .map((o) => Temporal.PlainDate.from(o.occurrence_date ?? today.toString()))
        .filter((date) => Temporal.PlainDate.compare(date, start) >= 0 && Temporal.PlainDate.compare(date, today) <= 0)
        .sort(Temporal.PlainDate.compare)
        .map((date) => (
          <Square key={date.toString()} date={date} mark={markOn(date)} />
        ))}
    </div>
  );
  // The counts are known once the squares are made.
  const label = `Last 12 weeks: ${counts.done} done, ${counts.skipped} skipped, ${counts.missed} missed`;
  return (
    <div className="heatmap" role="img" aria-label={label}>
      {body}
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
