import { lazy, Suspense, useEffect, useState } from 'react';
import { NavLink, Outlet, useNavigate, useSearchParams } from 'react-router';
import { useTiles } from '../api/queries.js';
import { Bell } from '../notifications/Bell.js';
import { QuickAdd } from '../quickadd/QuickAdd.js';
import { AccountMenu } from './AccountMenu.js';
import { ThemeToggle } from './ThemeToggle.js';

const TaskDrawer = lazy(() => import('../tasks/TaskDrawer.js'));
const CommandPalette = lazy(() => import('../quickadd/CommandPalette.js'));

/** True while the user types into a field: single-key shortcuts stay out of the way then. */
function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName));
}

/**
 * The frame of every signed-in screen: the header (navigation "Main", quick add, bell, theme, account), the
 * page, and what opens over any page (the task drawer from `?task=`, the command palette on Ctrl/Cmd+K).
 */
export function AppShell() {
  const tiles = useTiles();
  const [search, setSearch] = useSearchParams();
  const navigate = useNavigate();
  const [palette, setPalette] = useState(false);
  const taskId = search.get('task');
  const hasAdmin = tiles.data?.some((tile) => tile.id === 'admin') ?? false;

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        setPalette(true);
      } else if (event.key === 'q' && !event.ctrlKey && !event.metaKey && !event.altKey && !typing(event.target)) {
        event.preventDefault();
        document.getElementById('quick-add')?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const closeTask = () =>
    setSearch(
      (params) => {
        params.delete('task');
        return params;
      },
      { replace: true },
    );

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <NavLink to="/calendar" className="brand" aria-label="Routinely, calendar">
          <span className="brand-mark" aria-hidden="true" />
          <span className="brand-name">Routinely</span>
        </NavLink>
        <nav aria-label="Main" className="mainnav">
          <NavLink to="/home">Home</NavLink>
          <NavLink to="/calendar">Calendar</NavLink>
          <NavLink to="/tasks">Tasks</NavLink>
          <NavLink to="/routines">Routines</NavLink>
          <NavLink to="/settings">Settings</NavLink>
          {hasAdmin && <NavLink to="/admin">Admin</NavLink>}
        </nav>
        <QuickAdd />
        <div className="topbar-actions">
          <Bell />
          <ThemeToggle />
          <AccountMenu />
        </div>
      </header>
      <main id="main" className="page">
        <Outlet />
      </main>
      <Suspense fallback={null}>
        {taskId && <TaskDrawer taskId={taskId} onClose={closeTask} />}
        {palette && <CommandPalette onClose={() => setPalette(false)} navigate={navigate} />}
      </Suspense>
    </div>
  );
}
