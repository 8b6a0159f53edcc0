import { Navigate, Outlet, useSearchParams } from 'react-router';
import { SignInPage } from './SignInPage.js';
import { returnTarget } from './signed-in.js';

/**
 * `/home` is where single sign-on returns and the signed-in home screen. With `error=<code>` the sign-in screen
 * says what went wrong in words; with `next` (set by the sign-in screen before leaving for the provider) the app
 * continues to that page; otherwise the home screen (the nested signed-in routes) shows.
 */
export function HomePage() {
  const [search] = useSearchParams();
  if (search.get('error')) return <SignInPage />;
  if (search.get('next')) return <Navigate to={returnTarget(search)} replace />;
  return <Outlet />;
}
