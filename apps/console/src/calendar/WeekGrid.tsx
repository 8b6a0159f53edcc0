import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Temporal } from 'temporal-polyfill';
import type { CalendarEvent, Decision, Settings, Task } from '../api/queries.js';
import { hhmm, longDay, minutesLabel, wallMinutes, weekdayName } from '../time/zone.js';
import { BlockTip, explains, type TipTarget } from './BlockTip.js';
import { type Band, noGoBands, workingBands } from './bands.js';
import { HOUR_PX, useGridInteractions } from './interactions.js';
import { layoutDays, type Segment } from './layout.js';
import type { SlotChange } from './moves.js';
import { providerName, slotName } from './names.js';

export interface Ghost {
  decision: Decision;
  title: string;
}

interface WeekGridProps {
  days: Temporal.PlainDate[];
  events: CalendarEvent[];
  timeZone: string;
  settings: Settings;
  /** Decisions by task id, shown as the rationale of blocks still in their decision's slot. */
  decisions: Map<string, Decision>;
  /** The user's tasks by id: a block's priority. */
  tasks: Map<string, Task>;
  ghosts: Ghost[];
  /** A task dragged in from the side panel, if any. */
  placing: Task | undefined;
  onPlaced(): void;
  onChange(change: SlotChange): void;
  onOpen(taskId: string): void;
}

const px = (minutes: number) => `${(minutes / 60) * HOUR_PX}px`;
const HOURS = Array.from({ length: 24 }, (_, h) => h);

/**
 * The week (or day) grid, our own (ADR 100): a CSS grid of day columns with blocks placed by wall-clock minutes
 * in the settings timezone. One element per block keeps a week of 500 blocks small; moving and resizing by
 * pointer and keyboard are in interactions.ts.
 */
export function WeekGrid(props: WeekGridProps) {
  const { days, events, timeZone, settings, decisions, tasks, ghosts } = props;
  const bodyRef = useRef<HTMLDivElement>(null);
  const scrollRef = useRef<HTMLDivElement>(null);
  const [tip, setTip] = useState<TipTarget | undefined>();
  const previous = useRef(new Map<string, Segment>());
  const columns = useMemo(() => {
    // A segment that did not change keeps its object, so after a move only the moved block renders again.
    const next = new Map<string, Segment>();
    const laid = layoutDays(events, days, timeZone).map((segments, day) =>
      segments.map((seg) => {
        const key = `${day}:${seg.event.id}`;
        const old = previous.current.get(key);
        const kept =
          old &&
          old.event === seg.event &&
          old.top === seg.top &&
          old.bottom === seg.bottom &&
          old.col === seg.col &&
          old.cols === seg.cols
            ? old
            : seg;
        next.set(key, kept);
        return kept;
      }),
    );
    previous.current = next;
    return laid;
  }, [events, days, timeZone]);
  const ghostEvents = useMemo(
    () =>
      ghosts.map(
        (g): CalendarEvent => ({
          ...{ id: `ghost:${g.decision.task_id}`, source: 'task', title: g.title, start: g.decision.chosen_slot_start },
          ...{ end: g.decision.chosen_slot_end, all_day: false, status: 'proposed', busy: true },
          ...{ task_id: g.decision.task_id, integration_id: null, external_id: null, editable: false },
        }),
      ),
    [ghosts],
  );
  const ghostColumns = useMemo(() => layoutDays(ghostEvents, days, timeZone), [ghostEvents, days, timeZone]);
  const work = useMemo(() => workingBands(settings, days), [settings, days]);
  const noGo = useMemo(() => noGoBands(settings, days, timeZone), [settings, days, timeZone]);
  const interactions = useGridInteractions({ ...props, bodyRef, columns });
  const now = useNow(timeZone);
  const todayIndex = days.findIndex((d) => d.equals(now.toPlainDate()));

  // Opens at the start of the working day (an hour before), not at midnight.
  useLayoutEffect(() => {
    const starts = work.flat().map((b) => b.top);
    const first = starts.length ? Math.min(...starts) : 8 * 60;
    if (scrollRef.current) scrollRef.current.scrollTop = Math.max(0, ((first - 70) / 60) * HOUR_PX);
  }, [work]);

  const showTip = useCallback((target: TipTarget | undefined) => setTip(target), []);
  const eventById = useMemo(() => {
    const map = new Map<string, CalendarEvent>();
    for (const e of [...events, ...ghostEvents]) map.set(e.id, e);
    return map;
  }, [events, ghostEvents]);

  const tipEvent = tip ? eventById.get(tip.id) : undefined;
  const rationaleOf = (event: CalendarEvent) => {
    if (event.status === 'proposed')
      return ghosts.find((g) => `ghost:${g.decision.task_id}` === event.id)?.decision.rationale;
    const decision = event.task_id ? decisions.get(event.task_id) : undefined;
    return explains(decision, event) ? decision.rationale : undefined;
  };

  const single = days.length === 1;
  const first = days[0];
  const label = first ? (single ? longDay(first) : `Week of ${longDay(first)}`) : 'Calendar';
  return (
    <>
      <div
        className={`cal ${single ? 'cal-single' : ''}`}
        role="grid"
        aria-label={label}
        style={{ '--days': days.length } as React.CSSProperties}
      >
        <div role="rowgroup">
          <div role="row" className="cal-head">
            <div role="columnheader" className="cal-gutter">
              <span className="sr-only">Time</span>
            </div>
            {days.map((day, i) => (
              <div
                key={day.toString()}
                role="columnheader"
                aria-label={longDay(day)}
                className={i === todayIndex ? 'cal-dayhead is-today' : 'cal-dayhead'}
              >
                <span className="dow">{weekdayName(day).slice(0, 3)}</span>
                <span className="dom">{day.day}</span>
              </div>
            ))}
          </div>
        </div>
        {/* The scrolling hours are a row group the keyboard can reach, so they scroll without a mouse. */}
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take the focus (axe: scrollable-region-focusable) */}
        <div role="rowgroup" className="cal-scroll" ref={scrollRef} tabIndex={0} aria-label="Hours of the day">
          <div
            role="row"
            className="cal-body"
            ref={bodyRef}
            {...interactions.handlers}
            onMouseOver={(e) => interactions.hover(e, showTip)}
            onMouseOut={() => showTip(undefined)}
            onFocus={(e) => interactions.hover(e, showTip)}
            onBlur={() => showTip(undefined)}
          >
            <div role="rowheader" className="cal-hours" aria-label="Hours">
              {HOURS.map((h) => (
                <span key={h} style={{ top: px(h * 60) }}>
                  {h === 0 ? '' : minutesLabel(h * 60)}
                </span>
              ))}
            </div>
            {days.map((day, i) => (
              <DayColumn
                key={day.toString()}
                day={day}
                index={i}
                segments={columns[i] ?? []}
                ghosts={ghostColumns[i] ?? []}
                work={work[i] ?? []}
                noGo={noGo[i] ?? []}
                decisions={decisions}
                tasks={tasks}
                movingId={interactions.pending?.event.id}
                nowMinutes={i === todayIndex ? wallMinutes(now) : undefined}
              />
            ))}
            {interactions.preview.map((seg) => (
              <div
                key={`preview-${seg.dayIndex}`}
                className="block preview"
                aria-hidden="true"
                style={{
                  top: px(seg.top),
                  height: px(seg.bottom - seg.top),
                  gridColumn: `${seg.dayIndex + 2} / span 1`,
                }}
                data-time={`${minutesLabel(seg.top)} – ${minutesLabel(seg.bottom)}`}
              >
                {seg.title}
              </div>
            ))}
            {tipEvent && tip && !interactions.pending && (
              <BlockTip
                tip={tip}
                event={tipEvent}
                rationale={rationaleOf(tipEvent)}
                task={tipEvent.task_id ? tasks.get(tipEvent.task_id) : undefined}
                timeZone={timeZone}
              />
            )}
          </div>
        </div>
      </div>
      <p className="sr-only" role="status" aria-live="polite">
        {interactions.announcement}
      </p>
    </>
  );
}

interface DayColumnProps {
  day: Temporal.PlainDate;
  index: number;
  segments: Segment[];
  ghosts: Segment[];
  work: Band[];
  noGo: Band[];
  decisions: Map<string, Decision>;
  tasks: Map<string, Task>;
  movingId: string | undefined;
  nowMinutes: number | undefined;
}

const DayColumn = memo(function DayColumn(props: DayColumnProps) {
  const { day, index, segments, ghosts, work, noGo, decisions, tasks, movingId, nowMinutes } = props;
  return (
    <div role="gridcell" className="cal-day" data-day={index} data-date={day.toString()}>
      {work.map((b) => (
        <div
          key={`w${b.top}`}
          className="band work"
          aria-hidden="true"
          style={{ top: px(b.top), height: px(b.bottom - b.top) }}
        />
      ))}
      {noGo.map((b) => (
        <div
          key={`n${b.top}-${b.bottom}`}
          className="band nogo"
          aria-hidden="true"
          style={{ top: px(b.top), height: px(b.bottom - b.top) }}
        >
          {b.bottom - b.top >= 30 ? b.label : ''}
        </div>
      ))}
      {segments.map((seg) => (
        <Block
          key={seg.event.id}
          seg={seg}
          moving={seg.event.id === movingId}
          engine={explains(seg.event.task_id ? decisions.get(seg.event.task_id) : undefined, seg.event)}
          priority={seg.event.task_id ? tasks.get(seg.event.task_id)?.priority : undefined}
        />
      ))}
      {ghosts.map((seg) => (
        <Block
          key={seg.event.id}
          seg={seg}
          moving={false}
          engine
          ghost
          priority={seg.event.task_id ? tasks.get(seg.event.task_id)?.priority : undefined}
        />
      ))}
      {nowMinutes !== undefined && <div className="now-line" aria-hidden="true" style={{ top: px(nowMinutes) }} />}
    </div>
  );
});

/** One block, one element: the time and provider are drawn by CSS from data attributes. */
const Block = memo(function Block({
  seg,
  moving,
  engine,
  ghost,
  priority,
}: {
  seg: Segment;
  moving: boolean;
  engine: boolean;
  ghost?: boolean;
  priority: number | undefined;
}) {
  const { event, top, bottom, col, cols, start, end } = seg;
  const external = event.source !== 'task';
  const done = event.status === 'done';
  const classes = ['block'];
  if (external) classes.push('external');
  if (done) classes.push('done');
  if (event.status === 'skipped') classes.push('skipped');
  if (ghost) classes.push('ghost');
  if (moving) classes.push('is-moving');
  if (engine) classes.push('engine');
  if (bottom - top < 45) classes.push('short');
  const name = `${ghost ? 'Proposed: ' : ''}${slotName(event.title, start, end)}${done ? ', done' : ''}`;
  return (
    <button
      type="button"
      className={classes.join(' ')}
      data-id={event.id}
      data-priority={priority}
      data-time={`${hhmm(start)} – ${hhmm(end)}`}
      data-provider={external ? providerName(event) : undefined}
      aria-label={name}
      aria-disabled={!event.editable || ghost ? true : undefined}
      style={{
        top: px(top),
        height: `calc(${px(bottom - top)} - 2px)`,
        left: `calc(${(col / cols) * 100}% + 2px)`,
        width: `calc(${100 / cols}% - 4px)`,
      }}
    >
      {event.title}
    </button>
  );
});

/** The current time in the settings timezone, updated every minute for the now line. */
function useNow(timeZone: string): Temporal.ZonedDateTime {
  const [now, setNow] = useState(() => Temporal.Now.zonedDateTimeISO(timeZone));
  useEffect(() => {
    setNow(Temporal.Now.zonedDateTimeISO(timeZone));
    const timer = setInterval(() => setNow(Temporal.Now.zonedDateTimeISO(timeZone)), 60_000);
    return () => clearInterval(timer);
  }, [timeZone]);
  return now;
}
