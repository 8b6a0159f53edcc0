import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { Button } from 'react-aria-components';
import { Link, Navigate, useNavigate, useParams, useSearchParams } from 'react-router';
import type { Temporal } from 'temporal-polyfill';
import {
  type Decision,
  prefetchEvents,
  rangeOfDays,
  type Task,
  tasksById,
  unscheduledOf,
  useAllTasks,
  useEvents,
  useLatestDecisions,
  useSettings,
} from '../api/queries.js';
import { usePlan } from '../plan/use-plan.js';
import { daysOf, isView, parseDay, rangeTitle, stepDate, todayIn, VIEWS, type View } from '../time/zone.js';
import { ChevronLeft, ChevronRight, SparkIcon } from '../ui/icons.js';
import { AgendaView } from './AgendaView.js';
import { MonthView } from './MonthView.js';
import { useSlotChange } from './moves.js';
import { UnscheduledPanel } from './UnscheduledPanel.js';
import { type Ghost, WeekGrid } from './WeekGrid.js';

const PlanPanel = lazy(() => import('../plan/PlanPanel.js'));

const VIEW_LABEL: Record<View, string> = { week: 'Week', day: 'Day', month: 'Month', agenda: 'Agenda' };
const STEP_LABEL: Record<View, string> = { week: 'week', day: 'day', month: 'month', agenda: '30 days' };

/** `/calendar` goes to this week in the user's timezone. */
export function CalendarRedirect() {
  const settings = useSettings();
  if (!settings.data) return <div className="splash" aria-busy="true" />;
  return <Navigate to={`/calendar/week/${todayIn(settings.data.timezone).toString()}`} replace />;
}

const calendarPath = (view: View, date: Temporal.PlainDate) => `/calendar/${view}/${date.toString()}`;

/** The calendar: week (default), day, month and agenda of `/calendar/events`, in the settings timezone. */
export function CalendarPage() {
  const params = useParams();
  const settings = useSettings();
  if (!settings.data) return <div className="splash" aria-busy="true" />;
  if (!isView(params.view)) return <Navigate to="/calendar" replace />;
  return <Calendar view={params.view} dateParam={params.date} settings={settings.data} />;
}

function Calendar({
  view,
  dateParam,
  settings,
}: {
  view: View;
  dateParam: string | undefined;
  settings: NonNullable<ReturnType<typeof useSettings>['data']>;
}) {
  const timeZone = settings.timezone;
  const navigate = useNavigate();
  const [, setSearch] = useSearchParams();
  const queryClient = useQueryClient();
  const date = useMemo(() => parseDay(dateParam, timeZone), [dateParam, timeZone]);
  const days = useMemo(() => daysOf(view, date), [view, date]);
  const range = useMemo(() => rangeOfDays(days, timeZone), [days, timeZone]);
  const events = useEvents(range, view);
  const tasks = useAllTasks();
  const latest = useLatestDecisions();
  const change = useSlotChange(timeZone);
  const plan = usePlan();
  const [planOpen, setPlanOpen] = useState(false);
  const [placing, setPlacing] = useState<Task | undefined>();

  // The neighbouring ranges load in the background, so the previous/next buttons show data at once.
  useEffect(() => {
    for (const direction of [1, -1] as const) {
      const next = daysOf(view, stepDate(view, date, direction));
      void prefetchEvents(queryClient, rangeOfDays(next, timeZone), view);
    }
  }, [queryClient, view, date, timeZone]);

  const taskMap = useMemo(() => tasksById(tasks.data ?? []), [tasks.data]);
  const unscheduled = useMemo(() => unscheduledOf(tasks.data ?? []), [tasks.data]);
  const decisions = useMemo(() => {
    const map = new Map<string, Decision>();
    for (const d of latest.data ?? []) if (!map.has(d.task_id)) map.set(d.task_id, d);
    return map;
  }, [latest.data]);
  const ghosts = useMemo<Ghost[]>(
    () =>
      (plan.proposal?.decisions ?? []).map((decision) => ({
        decision,
        title: taskMap.get(decision.task_id)?.title ?? 'Task',
      })),
    [plan.proposal, taskMap],
  );

  const openTask = (taskId: string) =>
    setSearch((p) => {
      p.set('task', taskId);
      return p;
    });
  const today = todayIn(timeZone);
  const eventList = events.data?.events ?? [];

  return (
    <div className="calendar-page">
      <div className="cal-toolbar">
        <Link className="btn" to={calendarPath(view, today)}>
          Today
        </Link>
        <div className="btn-pair">
          <Link
            className="btn btn-icon"
            to={calendarPath(view, stepDate(view, date, -1))}
            aria-label={`Previous ${STEP_LABEL[view]}`}
          >
            <ChevronLeft />
          </Link>
          <Link
            className="btn btn-icon"
            to={calendarPath(view, stepDate(view, date, 1))}
            aria-label={`Next ${STEP_LABEL[view]}`}
          >
            <ChevronRight />
          </Link>
        </div>
        <h1 className="cal-title">{rangeTitle(view, date)}</h1>
        <span className="tz" title="Times are shown in your settings timezone">
          {timeZone}
        </span>
        <div className="spacer" />
        <nav className="segmented" aria-label="View">
          {VIEWS.map((v) => (
            <Link key={v} to={calendarPath(v, date)} aria-current={v === view ? 'page' : undefined}>
              {VIEW_LABEL[v]}
            </Link>
          ))}
        </nav>
        <Button
          className="btn btn-primary"
          onPress={() => {
            setPlanOpen(true);
            if (view !== 'week') void navigate(calendarPath('week', date));
          }}
        >
          <SparkIcon />
          Plan my week
        </Button>
      </div>
      <div className={`cal-main ${planOpen ? 'with-plan' : ''}`}>
        <UnscheduledPanel tasks={unscheduled} onOpen={openTask} onDragStart={setPlacing} />
        <div className="cal-view" aria-busy={events.isPending}>
          {events.isError && (
            <p className="notice notice-error" role="alert">
              The calendar could not be loaded: {events.error.message}
            </p>
          )}
          {(view === 'week' || view === 'day') && (
            <WeekGrid
              days={days}
              events={eventList}
              timeZone={timeZone}
              settings={settings}
              decisions={decisions}
              tasks={taskMap}
              ghosts={ghosts}
              placing={placing}
              onPlaced={() => setPlacing(undefined)}
              onChange={(c) => change.mutate(c)}
              onOpen={openTask}
            />
          )}
          {view === 'month' && (
            <MonthView days={days} month={date.month} events={eventList} timeZone={timeZone} onOpen={openTask} />
          )}
          {view === 'agenda' && <AgendaView days={days} events={eventList} timeZone={timeZone} onOpen={openTask} />}
        </div>
        {planOpen && (
          <Suspense fallback={<aside className="plan-panel" aria-busy="true" />}>
            <PlanPanel
              plan={plan}
              days={days}
              timeZone={timeZone}
              settings={settings}
              unscheduled={unscheduled}
              titles={taskMap}
              onClose={() => {
                plan.discard();
                setPlanOpen(false);
              }}
            />
          </Suspense>
        )}
      </div>
    </div>
  );
}
