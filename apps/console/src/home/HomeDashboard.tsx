import type { Schemas } from '@routinely/api-client';
import { Link } from 'react-router';
import { type DashboardSummary, useSummary, useTiles } from '../api/queries.js';
import { QueryView } from '../ui/states.js';

type Figure = keyof Omit<DashboardSummary, 'date' | 'timezone' | 'degraded'>;

/** The summary's figures in the order a person reads them, each with its words and where it leads. */
const FIGURES: { key: Figure; label: string; to: string; money?: boolean }[] = [
  { key: 'tasks_due_today', label: 'Due today', to: '/tasks' },
  { key: 'tasks_overdue', label: 'Overdue', to: '/tasks' },
  { key: 'reminders_next_24h', label: 'Reminders in the next 24 h', to: '/calendar' },
  { key: 'integrations_connected', label: 'Calendar connections', to: '/settings/calendars' },
  { key: 'llm_spend_today_usd', label: 'Model spend today', to: '/settings/model', money: true },
  { key: 'notifications_unread', label: 'Unread notifications', to: '/calendar' },
];

/**
 * Where each tile of the API's tile tree opens in the console (the tile's `path` is the API's, not a page).
 * A tile without a screen here is left out rather than linked to nothing.
 */
const TILE_ROUTES: Record<string, string> = {
  tasks: '/tasks',
  import: '/tasks?import=1',
  calendar: '/calendar',
  schedule: '/settings/model',
  usage: '/settings/model',
  integrations: '/settings/calendars',
  webhooks: '/settings/webhooks',
  settings: '/settings',
  admin: '/admin',
  quotas: '/admin/quotas',
  tenant_settings: '/admin/tenant',
  health: '/admin/health',
};

const usd = new Intl.NumberFormat('en', { style: 'currency', currency: 'USD', maximumFractionDigits: 4 });

function figureText(summary: DashboardSummary, key: Figure, money?: boolean): string {
  const value = summary[key];
  // A figure whose service did not answer is unknown, not zero (ADR 025).
  if (value === null || (summary.degraded as string[]).includes(key)) return 'Unavailable';
  return money ? usd.format(value) : String(value);
}

/** `/home`: today's figures and the tiles as the way into every screen this account may use. */
export default function HomeDashboard() {
  const summary = useSummary();
  const tiles = useTiles();
  return (
    <div className="content-page">
      <h1>Home</h1>
      <section aria-labelledby="home-today" className="stack">
        <h2 id="home-today">Today{summary.data ? `, ${summary.data.date}` : ''}</h2>
        <QueryView query={summary} label="Loading today's figures" rows={2}>
          {(s) => (
            <ul className="figures">
              {FIGURES.map((f) => {
                const text = figureText(s, f.key, f.money);
                return (
                  <li key={f.key} className="figure card" data-unavailable={text === 'Unavailable' || undefined}>
                    <Link to={f.to}>
                      <span className="figure-label">{f.label}</span>
                      <span className="figure-value">{text}</span>
                    </Link>
                  </li>
                );
              })}
            </ul>
          )}
        </QueryView>
        {summary.data && summary.data.degraded.length > 0 && (
          <p className="notice" role="status">
            Some figures are unavailable because a service did not answer in time; they refresh on their own.
          </p>
        )}
      </section>
      <section aria-labelledby="home-tiles" className="stack">
        <h2 id="home-tiles">Go to</h2>
        <QueryView query={tiles} label="Loading your screens" rows={3}>
          {(list) => <ul className="tiles">{list.flatMap((tile) => tileItem(tile))}</ul>}
        </QueryView>
      </section>
    </div>
  );
}

function tileItem(tile: Schemas['DashboardTile']) {
  const to = TILE_ROUTES[tile.id];
  if (!to) return [];
  const children = tile.children.filter((c) => TILE_ROUTES[c.id] && TILE_ROUTES[c.id] !== to);
  return [
    <li key={tile.id} className="tile card">
      <Link to={to} className="tile-link">
        {tile.title}
      </Link>
      {children.length > 0 && (
        <ul className="tile-children">
          {children.map((c) => (
            <li key={c.id}>
              <Link to={TILE_ROUTES[c.id] ?? to}>{c.title}</Link>
            </li>
          ))}
        </ul>
      )}
    </li>,
  ];
}
