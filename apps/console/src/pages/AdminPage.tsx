import { useTiles } from '../api/queries.js';

/** The admin tiles the API offers this user; issue 39 builds the screens behind them. */
export default function AdminPage() {
  const tiles = useTiles();
  const admin = tiles.data?.find((t) => t.id === 'admin');
  return (
    <div className="content-page">
      <h1>Admin</h1>
      {!admin && tiles.data && <p className="muted">Your account has no administration rights.</p>}
      <ul className="task-list card">
        {admin?.children.map((t) => (
          <li key={t.id} className="task-row static">
            <span className="task-row-title">{t.title}</span>
            <span className="muted small">{t.path}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
