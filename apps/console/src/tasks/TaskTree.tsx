import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type KeyboardEvent, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { api, data, problemText } from '../api/client.js';
import { keys, type Task } from '../api/queries.js';
import { dropPlacement, type KeyMove, keyPlacement, type Placement, type TreeRow } from './tree.js';

const ROW_PX = 36;
const OVERSCAN = 8;

/**
 * The task tree as one ARIA tree, virtualised: only the rows in view (and a few around) are in the DOM, each
 * placed by its index, so 1,000 tasks scroll like 40. Keyboard: arrows move, Right/Left expand/collapse,
 * Enter opens the task; Alt+Up/Down reorder, Alt+Right indents under the task above, Alt+Left outdents. A row
 * dragged onto another's upper half goes before it, onto its lower half inside it.
 */
export function TaskTree({
  tasks,
  rows,
  collapsed,
  onToggle,
  onOpen,
  focusedId,
  onFocus,
}: {
  tasks: Task[];
  rows: TreeRow[];
  collapsed: ReadonlySet<string>;
  onToggle(id: string, open: boolean): void;
  onOpen(id: string): void;
  focusedId: string | undefined;
  onFocus(id: string): void;
}) {
  const queryClient = useQueryClient();
  const box = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const [announcement, setAnnouncement] = useState('');
  const [dragged, setDragged] = useState<string | undefined>();
  const byId = useMemo(() => new Map(tasks.map((t) => [t.id, t])), [tasks]);
  // aria-setsize and aria-posinset of every task, once per tree (not per rendered row).
  const positions = useMemo(() => {
    const found = new Map<string, { size: number; pos: number }>();
    const groups = new Map<string | null, Task[]>();
    for (const t of tasks) groups.set(t.parent_task_id, [...(groups.get(t.parent_task_id) ?? []), t]);
    for (const group of groups.values()) {
      group.sort((a, b) => a.sort_order - b.sort_order);
      for (const [i, t] of group.entries()) found.set(t.id, { size: group.length, pos: i + 1 });
    }
    return found;
  }, [tasks]);
  const focusIndex = Math.max(
    0,
    rows.findIndex((r) => r.task.id === focusedId),
  );

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setHeight(el.clientHeight || 600));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  // The focused row stays in view and keeps the DOM focus when the rows change under it (a move, a collapse).
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const top = focusIndex * ROW_PX;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_PX > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_PX - el.clientHeight;
    if (el.contains(document.activeElement)) {
      requestAnimationFrame(() => document.getElementById(`tree-row-${rows[focusIndex]?.task.id}`)?.focus());
    }
  }, [focusIndex, rows]);

  const place = useMutation({
    mutationFn: async ({ task, to }: { task: Task; to: Placement }) => {
      if (to.parentId !== task.parent_task_id) {
        data(
          await api.POST('/api/v1/service/tasks/{task_id}/move', {
            params: { path: { task_id: task.id } },
            body: { parent_task_id: to.parentId },
          }),
        );
      }
      return data(
        await api.POST('/api/v1/service/tasks/{task_id}/reorder', {
          params: { path: { task_id: task.id } },
          body: { sort_order: to.position },
        }),
      );
    },
    onSuccess: (_, { task, to }) => {
      const parent = to.parentId ? byId.get(to.parentId)?.title : undefined;
      setAnnouncement(
        `Moved ${task.title} ${parent ? `into ${parent}` : 'to the top level'}, position ${to.position + 1}`,
      );
      void queryClient.invalidateQueries({ queryKey: keys.tasks });
    },
    onError: (failure) => setAnnouncement(`Not moved: ${problemText(failure)}`),
  });

  const onKeyDown = (event: KeyboardEvent) => {
    const row = rows[focusIndex];
    if (!row) return;
    const { task } = row;
    const go = (index: number) => {
      const next = rows[Math.min(rows.length - 1, Math.max(0, index))];
      if (next) onFocus(next.task.id);
    };
    if (event.altKey) {
      const move: KeyMove | undefined = (
        { ArrowUp: 'up', ArrowDown: 'down', ArrowRight: 'indent', ArrowLeft: 'outdent' } as const
      )[event.key as 'ArrowUp'];
      if (!move) return;
      event.preventDefault();
      const to = keyPlacement(tasks, task, move);
      if (to) place.mutate({ task, to });
      return;
    }
    const page = Math.max(1, Math.floor(height / ROW_PX) - 1);
    const actions: Record<string, () => void> = {
      ArrowDown: () => go(focusIndex + 1),
      ArrowUp: () => go(focusIndex - 1),
      PageDown: () => go(focusIndex + page),
      PageUp: () => go(focusIndex - page),
      Home: () => go(0),
      End: () => go(rows.length - 1),
      ArrowRight: () => {
        if (row.hasChildren && collapsed.has(task.id)) onToggle(task.id, true);
        else if (row.hasChildren) go(focusIndex + 1);
      },
      ArrowLeft: () => {
        if (row.hasChildren && !collapsed.has(task.id)) onToggle(task.id, false);
        else if (task.parent_task_id) {
          const parent = task.parent_task_id;
          onFocus(rows.find((r) => r.task.id === parent)?.task.id ?? task.id);
        }
      },
      Enter: () => onOpen(task.id),
    };
    const action = actions[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  };

  const first = Math.max(0, Math.floor(scrollTop / ROW_PX) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((scrollTop + height) / ROW_PX) + OVERSCAN);
  return (
    <>
      <div
        ref={box}
        className="tree"
        role="tree"
        aria-label="Tasks"
        onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
        onKeyDown={onKeyDown}
      >
        <div className="tree-body" style={{ height: `${rows.length * ROW_PX}px` }}>
          {rows.slice(first, last).map((row, i) => {
            const { task } = row;
            const index = first + i;
            const position = positions.get(task.id);
            const open = row.hasChildren ? !collapsed.has(task.id) : undefined;
            return (
              <div
                key={task.id}
                id={`tree-row-${task.id}`}
                role="treeitem"
                aria-level={task.depth}
                aria-setsize={position?.size}
                aria-posinset={position?.pos}
                aria-expanded={open}
                aria-selected={task.id === focusedId}
                tabIndex={index === focusIndex ? 0 : -1}
                className="tree-row"
                data-context={row.context || undefined}
                data-status={task.status}
                data-priority={task.priority}
                draggable
                style={{ transform: `translateY(${index * ROW_PX}px)`, paddingLeft: `${(task.depth - 1) * 20 + 8}px` }}
                onFocus={() => onFocus(task.id)}
                onDoubleClick={() => onOpen(task.id)}
                onDragStart={(e) => {
                  e.dataTransfer.setData('text/plain', task.id);
                  e.dataTransfer.effectAllowed = 'move';
                  setDragged(task.id);
                }}
                onDragEnd={() => setDragged(undefined)}
                onDragOver={(e) => {
                  if (dragged && dragged !== task.id) e.preventDefault();
                }}
                onDrop={(e) => {
                  e.preventDefault();
                  const moved = dragged ? byId.get(dragged) : undefined;
                  setDragged(undefined);
                  if (!moved) return;
                  const rect = e.currentTarget.getBoundingClientRect();
                  const half = e.clientY - rect.top < rect.height / 2 ? 'upper' : 'lower';
                  const to = dropPlacement(tasks, moved, task, half);
                  if (to) place.mutate({ task: moved, to });
                }}
              >
                <span
                  className="tree-toggle"
                  aria-hidden="true"
                  onClick={() => row.hasChildren && onToggle(task.id, !open)}
                >
                  {row.hasChildren ? (open ? '▾' : '▸') : ''}
                </span>
                <span className="tree-title">{task.title}</span>
                <span className="tree-meta muted small">
                  P{task.priority} · {task.status}
                  {task.tags.length > 0 ? ` · ${task.tags.map((t) => `#${t}`).join(' ')}` : ''}
                </span>
              </div>
            );
          })}
        </div>
      </div>
      <p className="sr-only" role="status" aria-live="polite">
        {announcement}
      </p>
      {announcement.startsWith('Not moved') && (
        <p className="notice notice-error" role="alert">
          {announcement}
        </p>
      )}
    </>
  );
}
