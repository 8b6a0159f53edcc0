import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { Link } from 'react-router';
import { api, data } from '../api/client.js';
import { keys, type Task, useAllTasks, useOccurrences, useRoutine, useSettings } from '../api/queries.js';
import { todayIn } from '../time/zone.js';
import { EmptyState, ProblemNotice, QueryView, Skeleton } from '../ui/states.js';
import { useToasts } from '../ui/toasts.js';
import { HeatLegend, HeatMap, heatStart } from './HeatMap.js';
import { ruleWords, streakText } from './rrule.js';

/** `/routines`: every routine with its rule, window, streaks and the last 12 weeks; pause and resume. */
export function RoutineList() {
  const routines = useAllTasks((tasks) => tasks.filter((t) => t.recurrence !== null));
  return (
    <>
      <div className="page-head">
        <h1>Routines</h1>
        <Link to="/routines/new" className="btn btn-primary">
          New routine
        </Link>
      </div>
      <QueryView query={routines} label="Loading routines" rows={4}>
        {(list) =>
          list.length === 0 ? (
            <EmptyState>
              No routines yet. A routine repeats by a rule you choose and plans itself into your calendar: use “New
              routine”, or quick add “stretch every weekday 7am”.
            </EmptyState>
          ) : (
            <>
              <HeatLegend />
              <ul className="routine-list">
                {list.map((r) => (
                  <RoutineCard key={r.id} routine={r} />
                ))}
              </ul>
            </>
          )
        }
      </QueryView>
    </>
  );
}

function RoutineCard({ routine }: { routine: Task }) {
  const settings = useSettings();
  const today = todayIn(settings.data?.timezone ?? 'UTC');
  const stats = useRoutine(routine.id);
  const occurrences = useOccurrences(routine.id, heatStart(today).toString(), today.toString());
  const recurrence = routine.recurrence;
  if (!recurrence) return null;
  const headingId = `routine-${routine.id}`;
  return (
    <li className="card routine" aria-labelledby={headingId}>
      <div className="routine-head">
        <h2 id={headingId}>
          <Link to={`/routines/${routine.id}`}>{routine.title}</Link>
        </h2>
        <PauseButton routine={routine} />
      </div>
      <p className="muted">
        {ruleWords(recurrence.rule)}
        {recurrence.window ? `, ${recurrence.window.start}–${recurrence.window.end}` : ', any time of day'}
        {recurrence.auto_schedule ? '' : ' · paused: not planned automatically'}
      </p>
      {stats.isError ? (
        <ProblemNotice error={stats.error} onRetry={() => void stats.refetch()} />
      ) : stats.data?.series_stats ? (
        <p className="streaks">
          <span>{streakText('Current', stats.data.series_stats.current_streak, recurrence.rule)}</span>
          <span className="muted">
            {streakText('Longest', stats.data.series_stats.longest_streak, recurrence.rule)}
          </span>
        </p>
      ) : (
        <Skeleton rows={1} label={`Loading the streak of ${routine.title}`} />
      )}
      <QueryView query={occurrences} label={`Loading the last 12 weeks of ${routine.title}`} rows={1}>
        {(items) => <HeatMap occurrences={items} rule={recurrence.rule} today={today} />}
      </QueryView>
    </li>
  );
}

/** Pause (auto_schedule off: occurrences are still made, but not placed) and resume. */
export function PauseButton({ routine }: { routine: Task }) {
  const queryClient = useQueryClient();
  const toasts = useToasts();
  const recurrence = routine.recurrence;
  const toggle = useMutation({
    mutationFn: async () => {
      if (!recurrence) throw new Error('not a routine');
      const { rule, starts_on, until, window, horizon_days } = recurrence;
      return data(
        await api.PATCH('/api/v1/service/tasks/{task_id}', {
          params: { path: { task_id: routine.id } },
          body: {
            recurrence: { rule, starts_on, until, window, horizon_days, auto_schedule: !recurrence.auto_schedule },
          },
        }),
      );
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.tasks }),
    onError: (failure) => toasts.show({ text: failure.message, tone: 'error' }),
  });
  if (!recurrence) return null;
  return (
    <Button className="btn btn-small" onPress={() => toggle.mutate()} isDisabled={toggle.isPending}>
      {recurrence.auto_schedule ? `Pause ${routine.title}` : `Resume ${routine.title}`}
    </Button>
  );
}
