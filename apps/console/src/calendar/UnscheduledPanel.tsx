import type { Task } from '../api/queries.js';
import { durationLabel } from '../time/zone.js';
import { GripIcon } from '../ui/icons.js';

/**
 * Pending tasks with a duration. Drag one onto the grid to give it that slot (pointer); Enter opens it (the
 * drawer), and Plan my week places them all.
 */
export function UnscheduledPanel({
  tasks,
  onOpen,
  onDragStart,
}: {
  tasks: Task[];
  onOpen(taskId: string): void;
  onDragStart(task: Task): void;
}) {
  return (
    <aside className="side-panel" aria-labelledby="unscheduled-title">
      <h2 id="unscheduled-title">
        Unscheduled <span className="count">{tasks.length}</span>
      </h2>
      {tasks.length === 0 ? (
        <p className="muted small">Nothing waiting. Add a task with Quick add (q).</p>
      ) : (
        <ul className="unscheduled">
          {tasks.map((task) => (
            <li key={task.id}>
              <button
                type="button"
                className="unscheduled-item"
                data-priority={task.priority}
                onPointerDown={(e) => {
                  if (e.button !== 0) return;
                  e.preventDefault();
                  const x = e.clientX;
                  const y = e.clientY;
                  // A press that moves becomes a drag; one that does not opens the task.
                  const onMove = (m: PointerEvent) => {
                    if (Math.hypot(m.clientX - x, m.clientY - y) < 4) return;
                    window.removeEventListener('pointermove', onMove);
                    onDragStart(task);
                  };
                  window.addEventListener('pointermove', onMove);
                  window.addEventListener('pointerup', () => window.removeEventListener('pointermove', onMove), {
                    once: true,
                  });
                }}
                onClick={() => onOpen(task.id)}
              >
                <GripIcon />
                <span className="u-title">{task.title}</span>
                <span className="u-meta">
                  {durationLabel(task.duration_min)}
                  <span className="sr-only">, priority {task.priority}</span>
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}
