import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { Link, useNavigate, useParams } from 'react-router';
import { Temporal } from 'temporal-polyfill';
import { api, data } from '../api/client.js';
import { keys, type Task, type TaskWithStats, useOccurrences, useRoutine, useSettings } from '../api/queries.js';
import { StepList } from '../tasks/StepList.js';
import { hhmm, longDay, todayIn, zoned } from '../time/zone.js';
import { EmptyState, QueryView } from '../ui/states.js';
import { useToasts } from '../ui/toasts.js';
import { RoutineForm } from './RoutineForm.js';
import { PauseButton } from './RoutineList.js';
import { streakText } from './rrule.js';

/** `/routines/new`: the form alone; saving opens the new routine. */
export function NewRoutine() {
  const navigate = useNavigate();
  return (
    <>
      <p>
        <Link to="/routines">← Routines</Link>
      </p>
      <h1>New routine</h1>
      <RoutineForm onSaved={(saved) => void navigate(`/routines/${saved.id}`)} />
    </>
  );
}

/** `/routines/:id`: streaks, the rule and window (edit), steps, pause and resume, and the occurrences. */
export function RoutineDetail() {
  const { id = '' } = useParams();
  const routine = useRoutine(id);
  return (
    <>
      <p>
        <Link to="/routines">← Routines</Link>
      </p>
      <QueryView query={routine} label="Loading the routine" rows={6}>
        {(r) => (r.recurrence ? <RoutineScreen routine={r} /> : <EmptyState>This task is not a routine.</EmptyState>)}
      </QueryView>
    </>
  );
}

function RoutineScreen({ routine }: { routine: TaskWithStats }) {
  const queryClient = useQueryClient();
  const toasts = useToasts();
  const tree = useQuery({
    queryKey: keys.task(routine.id),
    queryFn: async () =>
      data(await api.GET('/api/v1/service/tasks/{task_id}/tree', { params: { path: { task_id: routine.id } } })),
  });
  const rule = routine.recurrence?.rule ?? '';
  const stats = routine.series_stats;
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: keys.tasks });
    void queryClient.invalidateQueries({ queryKey: keys.events });
  };
  return (
    <>
      <div className="page-head">
        <h1>{routine.title}</h1>
        <PauseButton routine={routine} />
      </div>
      {stats && (
        <p className="streaks">
          <span>{streakText('Current', stats.current_streak, rule)}</span>
          <span className="muted">{streakText('Longest', stats.longest_streak, rule)}</span>
          <span className="muted">
            {stats.done} done, {stats.skipped} skipped, {stats.missed} missed
          </span>
        </p>
      )}
      <Occurrences routine={routine} />
      <section className="card" aria-labelledby="routine-steps">
        <h2 id="routine-steps" className="sr-only">
          Steps of {routine.title}
        </h2>
        <QueryView query={tree} label="Loading the steps" rows={2}>
          {(t) => <StepList parent={t} steps={t.children} onChanged={refresh} template />}
        </QueryView>
        <p className="muted small">Step changes reach the occurrences that are still ahead.</p>
      </section>
      <section className="card" aria-labelledby="routine-edit">
        <h2 id="routine-edit">Rule and window</h2>
        <RoutineForm
          key={routine.updated_at}
          routine={routine}
          onSaved={() => toasts.show({ text: `Saved ${routine.title}`, tone: 'info' })}
        />
      </section>
    </>
  );
}

/** Two weeks back and two ahead; an open occurrence can be marked done or skipped. */
function Occurrences({ routine }: { routine: Task }) {
  const settings = useSettings();
  const queryClient = useQueryClient();
  const toasts = useToasts();
  const timeZone = settings.data?.timezone ?? 'UTC';
  const today = todayIn(timeZone);
  const occurrences = useOccurrences(
    routine.id,
    today.subtract({ days: 14 }).toString(),
    today.add({ days: 14 }).toString(),
  );
  const mark = useMutation({
    mutationFn: async ({ id, status }: { id: string; status: 'done' | 'skipped' }) =>
      data(await api.PATCH('/api/v1/service/tasks/{task_id}', { params: { path: { task_id: id } }, body: { status } })),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: keys.tasks });
      void queryClient.invalidateQueries({ queryKey: keys.events });
    },
    onError: (failure) => toasts.show({ text: failure.message, tone: 'error' }),
  });
  return (
    <section className="card" aria-labelledby="routine-occurrences">
      <h2 id="routine-occurrences">Occurrences</h2>
      <QueryView query={occurrences} label="Loading the occurrences" rows={4}>
        {(items) =>
          items.length === 0 ? (
            <EmptyState>No occurrences in these four weeks.</EmptyState>
          ) : (
            <ul className="task-list occurrences">
              {items.map((o) => {
                const date = o.occurrence_date ?? '';
                const day = date === today.toString() ? 'Today' : longDay(Temporal.PlainDate.from(date));
                const open = o.status === 'pending' || o.status === 'scheduled';
                const slot = o.chosen_slot_start ? hhmm(zoned(o.chosen_slot_start, timeZone)) : 'not placed';
                return (
                  <li key={o.id} className="task-row static occurrence" data-status={o.status}>
                    <span className="task-row-title">
                      {day} <span className="muted small">{slot}</span>
                    </span>
                    <span className="status">{o.status}</span>
                    {open && (
                      <span className="btn-pair">
                        <Button
                          className="btn btn-small"
                          aria-label={`Done ${day}`}
                          onPress={() => mark.mutate({ id: o.id, status: 'done' })}
                        >
                          Done
                        </Button>
                        <Button
                          className="btn btn-small"
                          aria-label={`Skip ${day}`}
                          onPress={() => mark.mutate({ id: o.id, status: 'skipped' })}
                        >
                          Skip
                        </Button>
                      </span>
                    )}
                  </li>
                );
              })}
            </ul>
          )
        }
      </QueryView>
    </section>
  );
}
