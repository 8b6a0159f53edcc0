import { type GuardTarget, type RouteGuardTable, runRouteGuards } from '@routinely/testkit';
import { afterAll, beforeAll } from 'vitest';
import { type AuthHarness, bearer, register, STRONG_PASSWORD, startAuth } from './harness.js';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuth();
});
afterAll(() => h?.close());

/** Auth verifies its own tokens: the owner is a registered user holding a real access token. */
interface Account {
  access: string;
}

const target = (): GuardTarget<Account> => ({
  routes: h.routes,
  call: (user, method, path, payload, headers) =>
    h.app.inject({
      method,
      url: `/api/v1${path}`,
      headers: { ...(user ? bearer(user.access) : {}), ...headers },
      ...(payload === undefined ? {} : { payload: payload as object }),
    }),
  owner: async () => ({ access: (await register(h.app)).access }),
  // No auth route carries a permission code or addresses a resource by id, so these are never asked for.
  stranger: () => Promise.reject(new Error('auth routes address no tenant resource by id')),
  lacking: () => Promise.reject(new Error('auth routes carry no permission code')),
});

const PUBLIC_SIGN_IN = 'signs a caller in who has no token yet';

// Every auth route under the mount: a new route fails the coverage check until it is listed here. The
// account routes act on the caller's own account, so there is no other tenant's id to ask for (no 404 case).
const TABLE: RouteGuardTable<Account> = {
  'POST /auth/register': {
    auth: { mode: 'none', reason: 'creates the account a token is later issued for' },
    invalid: { body: { email: 'not-an-email', password: STRONG_PASSWORD } },
  },
  'POST /auth/login': { auth: { mode: 'none', reason: PUBLIC_SIGN_IN }, invalid: { body: { email: 'a@b.test' } } },
  'POST /auth/login/form': { auth: { mode: 'none', reason: PUBLIC_SIGN_IN }, invalid: { body: { password: 'x' } } },
  'POST /auth/refresh': {
    auth: { mode: 'none', reason: 'the refresh token in the body is the credential' },
    invalid: { body: { refresh_token: '' } },
  },
  'POST /auth/logout': { invalid: { body: { logout_all: 'yes' } } },
  'GET /auth/me': {},
  'PATCH /auth/me': { body: () => ({ display_name: 'Me' }), invalid: { body: { nickname: 'x' } } },
  'GET /auth/status': {
    auth: { mode: 'optional', reason: 'the login page asks which methods exist before anyone signs in' },
  },
  'GET /auth/health': { auth: { mode: 'none', reason: 'probe of the auth service' } },
  'POST /auth/set-local-password': { invalid: { body: { new_password: 'short' } } },
  'POST /auth/local/setup-password': { invalid: { body: { password: 'short' } } },
  'POST /auth/mfa/setup': {},
  'POST /auth/mfa/verify': {
    auth: { mode: 'optional', reason: 'completes a login with the mfa_token when the caller has no access token yet' },
    invalid: { body: { code: '1' } },
  },
  'DELETE /auth/mfa': { invalid: { body: { code: '1' } } },
};

runRouteGuards('auth', target, TABLE);
