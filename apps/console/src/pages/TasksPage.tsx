import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { useAllTasks, useSettings } from '../api/queries.js';
import { durationLabel, hhmm, longDay, zoned } from '../time/zone.js';

const GROUPS = [
  { status: 'pending', title: 'To schedule' },
  { status: 'scheduled', title: 'Scheduled' },
  { status: 'done', title: 'Done' },
  { status: 'skipped', title: 'Skipped' },
] as const;

/** Every root task by state; a task opens in the drawer. (Part 2 adds filters and bulk actions here.) */
export default function TasksPage() {
  const tasks = useAllTasks();
  const settings = useSettings();
  const [, setSearch] = useSearchParams();
  const timeZone = settings.data?.timezone ?? 'UTC';
  const roots = useMemo(
    () => (tasks.data ?? []).filter((t) => t.parent_task_id === null && t.recurrence === null),
    [tasks.data],
  );
  return (
    <div className="content-page">
      <h1>Tasks</h1>
      {tasks.isPending && <p aria-busy="true">Loading…</p>}
      {GROUPS.map((group) => {
        const items = roots.filter((t) => t.status === group.status);
        if (items.length === 0) return null;
        return (
          <section key={group.status} aria-labelledby={`group-${group.status}`} className="card">
            <h2 id={`group-${group.status}`}>
              {group.title} <span className="count">{items.length}</span>
            </h2>
            <ul className="task-list">
              {items.map((t) => (
                <li key={t.id}>
                  <button
                    type="button"
                    className="task-row"
                    data-priority={t.priority}
                    onClick={() =>
                      setSearch((p) => {
                        p.set('task', t.id);
                        return p;
                      })
                    }
                  >
                    <span className="task-row-title">{t.title}</span>
                    <span className="muted small">
                      {t.chosen_slot_start
                        ? `${longDay(zoned(t.chosen_slot_start, timeZone).toPlainDate())} ${hhmm(zoned(t.chosen_slot_start, timeZone))}`
                        : durationLabel(t.duration_min)}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          </section>
        );
      })}
      {tasks.data && roots.length === 0 && <p className="muted">No tasks yet. Press q to add one.</p>}
    </div>
  );
}
