import { useTiles } from '../api/queries.js';
import { QueryView } from '../ui/states.js';

/** The admin tiles the API offers this user; a user without them gets "Not allowed", not an empty page. */
export default function AdminPage() {
  const tiles = useTiles();
  return (
    <div className="content-page">
      <QueryView query={tiles} label="Loading administration">
        {(list) => {
          const admin = list.find((t) => t.id === 'admin');
          if (!admin) return <NotAllowed />;
          return (
            <>
              <h1>Admin</h1>
              <ul className="task-list card">
                {admin.children.map((t) => (
                  <li key={t.id} className="task-row static">
                    <span className="task-row-title">{t.title}</span>
                  </li>
                ))}
              </ul>
            </>
          );
        }}
      </QueryView>
    </div>
  );
}

export function NotAllowed() {
  return (
    <>
      <h1>Not allowed</h1>
      <p>Administration is for the tenant's administrators; your account does not have that right.</p>
    </>
  );
}
