import type { QueryClient } from '@tanstack/react-query';
import { sessionExpiresAt } from '../api/session.js';

/** Where to go after signing in: the page kept in `?return=` (same-site paths only), else the calendar. */
export function returnTarget(search: URLSearchParams): string {
  const target = search.get('return') ?? search.get('next') ?? '';
  return /^\/(?![/\\])/.test(target) ? target : '/calendar';
}

/** After any sign-in answer: plan the refresh and drop whatever an earlier user left in the cache. */
export function signedIn(queryClient: QueryClient, answer: { expires_in: number }): void {
  queryClient.clear();
  sessionExpiresAt(Date.now() + answer.expires_in * 1000);
}

/** The SSO callback's `error` codes in words (contract: the return page shows them). */
export function ssoErrorText(code: string): string {
  const words: Record<string, string> = {
    invalid_state:
      'The single sign-on attempt expired or was started in another browser window. Please start it again.',
    access_denied: 'The identity provider did not allow the sign-in.',
    sso_unavailable: 'Single sign-on is not available right now. Try again later or use your password.',
    invalid_sso_token: 'The identity provider sent an answer that could not be verified.',
    account_disabled: 'This account is disabled.',
    registration_closed: 'There is no account for you here yet, and registration is closed.',
    provider_error: 'The identity provider reported an error.',
  };
  return words[code] ?? `Single sign-on failed (${code}).`;
}
