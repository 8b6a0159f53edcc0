import { lazy, Suspense, useMemo, useState } from 'react';
import { Button } from 'react-aria-components';
import { useSearchParams } from 'react-router';
import { useAllTasks } from '../api/queries.js';
import { EmptyState, QueryView, Skeleton } from '../ui/states.js';
import { TaskTree } from './TaskTree.js';
import { NO_FILTER, plainTasks, type TaskFilter, visibleRows } from './tree.js';

// The dependency picker (a select with a popover) and bulk import load on first use: the tree is the first screen.
const DependencyList = lazy(() => import('./DependencyList.js').then((m) => ({ default: m.DependencyList })));
const ImportPanel = lazy(() => import('./ImportPanel.js').then((m) => ({ default: m.ImportPanel })));

const STATUSES = ['pending', 'scheduled', 'done', 'skipped', 'cancelled'];

/** `/tasks`: the whole tree (depth 5) with filters, moves, the focused task's dependencies, and bulk import. */
export default function TasksPage() {
  const tasks = useAllTasks(plainTasks);
  const [search, setSearch] = useSearchParams();
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [filter, setFilter] = useState<TaskFilter>(NO_FILTER);
  const [focusedId, setFocusedId] = useState<string | undefined>();
  const importing = search.get('import') === '1';
  const list = tasks.data ?? [];
  const rows = useMemo(() => visibleRows(list, collapsed, filter), [list, collapsed, filter]);
  const tags = useMemo(() => [...new Set(list.flatMap((t) => t.tags))].sort(), [list]);
  // The details (and the dependency picker's code) wait for a task to be focused: not part of the first screen.
  const focused = list.find((t) => t.id === focusedId);
  const setParam = (key: string, value: string | undefined) =>
    setSearch((p) => {
      if (value === undefined) p.delete(key);
      else p.set(key, value);
      return p;
    });
  const toggle = (id: string, open: boolean) =>
    setCollapsed((c) => {
      const next = new Set(c);
      if (open) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <div className="content-page wide">
      <div className="page-head">
        <h1>Tasks</h1>
        <Button className="btn" onPress={() => setParam('import', importing ? undefined : '1')}>
          Bulk import
        </Button>
      </div>
      {importing && (
        <Suspense fallback={<Skeleton rows={3} label="Loading bulk import" />}>
          <ImportPanel onClose={() => setParam('import', undefined)} />
        </Suspense>
      )}
      <fieldset className="row wrap filters">
        <legend className="sr-only">Filters</legend>
        <FilterSelect
          label="Status"
          value={filter.status}
          options={STATUSES}
          onChange={(status) => setFilter((f) => ({ ...f, status }))}
        />
        <FilterSelect
          label="Tag"
          value={filter.tag}
          options={tags}
          onChange={(tag) => setFilter((f) => ({ ...f, tag }))}
        />
        <FilterSelect
          label="Priority"
          value={filter.priority}
          options={['1', '2', '3', '4', '5']}
          onChange={(priority) => setFilter((f) => ({ ...f, priority }))}
        />
        <Button className="btn btn-small btn-quiet" onPress={() => setCollapsed(new Set(list.map((t) => t.id)))}>
          Collapse all
        </Button>
        <Button className="btn btn-small btn-quiet" onPress={() => setCollapsed(new Set())}>
          Expand all
        </Button>
      </fieldset>
      <p className="muted small" id="tree-help">
        Arrows move through the tree, Right and Left open and close, Enter opens a task. Alt with the arrows moves the
        task: up, down, into the task above, out of its parent. Or drag a task onto another.
      </p>
      <QueryView query={tasks} label="Loading tasks" rows={8}>
        {() =>
          list.length === 0 ? (
            <EmptyState>No tasks yet. Press q to add one, or import a CSV or JSON file.</EmptyState>
          ) : rows.length === 0 ? (
            <EmptyState>No task matches these filters.</EmptyState>
          ) : (
            <div className="tasks-layout">
              <TaskTree
                tasks={list}
                rows={rows}
                collapsed={collapsed}
                onToggle={toggle}
                onOpen={(id) => setParam('task', id)}
                focusedId={focusedId}
                onFocus={setFocusedId}
              />
              {!focused && (
                <aside className="card tree-details" aria-label="Details">
                  <p className="muted">Focus a task to see what it waits for.</p>
                </aside>
              )}
              {focused && (
                <aside className="card tree-details" aria-label={`Details of ${focused.title}`}>
                  <h2>{focused.title}</h2>
                  <Button className="btn btn-small" onPress={() => setParam('task', focused.id)}>
                    Open {focused.title}
                  </Button>
                  <Suspense fallback={<Skeleton rows={2} label="Loading dependencies" />}>
                    <DependencyList key={focused.id} taskId={focused.id} />
                  </Suspense>
                </aside>
              )}
            </div>
          )
        }
      </QueryView>
    </div>
  );
}

function FilterSelect({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: string;
  options: string[];
  onChange(value: string): void;
}) {
  const id = `filter-${label.toLowerCase()}`;
  return (
    <span className="field inline">
      <label htmlFor={id}>{label}</label>
      <select id={id} className="select" value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Any</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {label === 'Priority' ? `P${o}` : o}
          </option>
        ))}
      </select>
    </span>
  );
}
