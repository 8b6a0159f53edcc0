import { Navigate, useSearchParams } from 'react-router';
import { SignInPage } from './SignInPage.js';
import { returnTarget } from './signed-in.js';

/**
 * Where single sign-on returns (`/home`): with `error=<code>` the sign-in screen says what went wrong in
 * words; otherwise the session cookies are set and the app continues to the page kept in `next`.
 */
export function HomePage() {
  const [search] = useSearchParams();
  if (search.get('error')) return <SignInPage />;
  return <Navigate to={returnTarget(search)} replace />;
}
