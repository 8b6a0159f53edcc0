import { useAllTasks } from '../api/queries.js';

/** The user's routines (series tasks), read-only for now: issue 39 builds creating and editing them here. */
export default function RoutinesPage() {
  const tasks = useAllTasks();
  const routines = (tasks.data ?? []).filter((t) => t.recurrence !== null);
  return (
    <div className="content-page">
      <h1>Routines</h1>
      {tasks.data && routines.length === 0 && (
        <p className="muted">No routines yet. Quick add understands “every weekday 7am” and similar.</p>
      )}
      <ul className="task-list card">
        {routines.map((r) => (
          <li key={r.id} className="task-row static">
            <span className="task-row-title">{r.title}</span>
            <span className="muted small">{r.recurrence?.rule}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
