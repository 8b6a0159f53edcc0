import { type ApiClient, createApiClient, type Schemas } from '@routinely/api-client';
import { refreshSession, signedOut } from './session.js';

/** Answers that must reach the caller as they are: a 401 there means wrong credentials, not an expired session. */
const NO_RETRY = /\/api\/v1\/auth\/(login|register|refresh|mfa\/verify|sso\/callback|logout)$/;

/** A 401 about the credentials sent (a wrong current password), which a session's refresh cannot change. */
async function refusedCredentials(response: Response): Promise<boolean> {
  const problem = (await response
    .clone()
    .json()
    .catch(() => undefined)) as { code?: string } | undefined;
  return problem?.code === 'invalid_credentials';
}

/**
 * fetch for the typed client: the session lives in the HttpOnly cookie the browser sends on its own, so a 401 is
 * an expired session. It refreshes once (across tabs, see session.ts) and sends the request again; when that
 * fails too, the app goes to sign-in keeping the page to return to. A 401 `invalid_credentials` (a wrong
 * current password to turn two-step verification off or to change the password) is the form's answer instead.
 */
async function sessionFetch(request: Request): Promise<Response> {
  const retry = request.clone();
  const response = await fetch(request);
  if (response.status !== 401 || NO_RETRY.test(new URL(request.url).pathname)) return response;
  if (await refusedCredentials(response)) return response;
  if (await refreshSession()) {
    const again = await fetch(retry);
    if (again.status !== 401) return again;
  }
  signedOut('expired');
  return response;
}

/** The one client of the console: same origin, cookies only (no Authorization header, no token in script). */
export const api: ApiClient = createApiClient({ baseUrl: window.location.origin, fetch: sessionFetch });

export type Problem = Schemas['Problem'];

/** Thrown by `data()` for any answer that is not a success: carries the problem+json body when there is one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | undefined,
  ) {
    super(problem?.detail ?? `The server answered ${status}`);
  }
}

/** The body of a successful typed call, or an ApiError with the problem's detail (what the UI shows). */
export function data<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok && result.error === undefined) return result.data as T;
  const error = result.error;
  const problem = error && typeof error === 'object' && 'detail' in error ? (error as Problem) : undefined;
  throw new ApiError(result.response.status, problem);
}

/** The words to show for a failed call. */
export function problemText(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return `The request failed: ${error.message}`;
  return 'The request failed';
}

const NO_FIELD_ERRORS: Record<string, string> = {};
const fieldErrorsOf = new WeakMap<ApiError, Record<string, string>>();

/**
 * A 422's invalid fields by their place in the body ("title", "recurrence.rule"), so a form shows each message
 * on its own field; empty for any other failure. The same object for the same error: React Aria's Form shows
 * server errors again whenever it gets a new object, so a field corrected by typing would keep its old error.
 */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || error.status !== 422) return NO_FIELD_ERRORS;
  const known = fieldErrorsOf.get(error);
  if (known) return known;
  const found: Record<string, string> = {};
  for (const item of error.problem?.errors ?? []) {
    const [part, ...path] = item.loc;
    if (part === 'body') found[path.join('.')] ??= item.msg;
  }
  fieldErrorsOf.set(error, found);
  return found;
}
