import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { ApiError } from '../api/client.js';
import { useMe } from '../api/queries.js';
import { onSignedOut, sessionExpiresAt } from '../api/session.js';

/**
 * The signed-in part of the app. `/auth/me` answers whether the session cookie works (after one refresh when
 * it has expired, see client.ts) and when it expires; without a session the app goes to sign-in, keeping the
 * page to come back to.
 */
export function RequireSession() {
  const me = useMe();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const here = `${location.pathname}${location.search}`;

  useEffect(() => {
    if (me.data) sessionExpiresAt(me.data.exp * 1000);
  }, [me.data]);

  useEffect(
    () =>
      onSignedOut((reason) => {
        queryClient.clear();
        const back = `return=${encodeURIComponent(`${window.location.pathname}${window.location.search}`)}`;
        void navigate(reason === 'expired' ? `/sign-in?expired=1&${back}` : '/sign-in', { replace: true });
      }),
    [navigate, queryClient],
  );

  if (me.isPending) return <div className="splash" aria-busy="true" />;
  if (me.error instanceof ApiError && me.error.status === 401) {
    return <Navigate to={`/sign-in?return=${encodeURIComponent(here)}`} replace />;
  }
  if (me.isError) {
    return (
      <main className="auth">
        <div className="auth-card">
          <h1>Routinely cannot be reached</h1>
          <p className="notice notice-error" role="alert">
            {me.error.message}
          </p>
          <button type="button" className="btn btn-primary" onClick={() => void me.refetch()}>
            Try again
          </button>
        </div>
      </main>
    );
  }
  return <Outlet />;
}
