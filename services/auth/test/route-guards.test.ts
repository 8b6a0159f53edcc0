import { type GuardTarget, type RouteGuardTable, runRouteGuards } from '@routinely/testkit';
import { afterAll, beforeAll } from 'vitest';
import { type AuthHarness, bearer, register, STRONG_PASSWORD } from './harness.js';
import { type SsoHarness, startSso } from './sso-harness.js';

// SSO configured against the fake provider, so the SSO routes get as far as their own validation.
let sso: SsoHarness;
let h: AuthHarness;
beforeAll(async () => {
  sso = await startSso();
  h = sso.h;
});
afterAll(() => sso?.close());

/** Auth verifies its own tokens: the owner is a registered user holding a real access token. */
interface Account {
  access: string;
  tenantId: string;
}

/** The first user of a fresh tenant: its admin. */
async function tenantAdmin(): Promise<Account> {
  const tenantId = crypto.randomUUID();
  return { access: (await register(h.app, { tenant_id: tenantId })).access, tenantId };
}

async function createInvite(admin: Account): Promise<{ id: string; token: string }> {
  const res = await h.app.inject({
    method: 'POST',
    url: '/api/v1/auth/tenant/invites',
    headers: bearer(admin.access),
    payload: {},
  });
  return res.json();
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
  owner: tenantAdmin,
  // Another tenant's admin: the tenant routes are the only ones addressing a tenant's resource (invitations).
  stranger: tenantAdmin,
  // A plain user of the owner's tenant, joined by invitation: holds no SERVICE_ADMIN.
  lacking: async (_missing, like) => {
    const { token } = await createInvite(like);
    const joined = await register(h.app, { tenant_id: like.tenantId, invite_token: token });
    return { access: joined.access, tenantId: like.tenantId };
  },
});

const PUBLIC_SIGN_IN = 'signs a caller in who has no token yet';

// Every auth route under the mount: a new route fails the coverage check until it is listed here. The
// account routes act on the caller's own account, so there is no other tenant's id to ask for (no 404 case);
// only invitations are a tenant's resource addressed by id.
const TABLE: RouteGuardTable<Account> = {
  'POST /auth/register': {
    auth: { mode: 'none', reason: 'creates the account a token is later issued for' },
    invalid: { body: { email: 'not-an-email', password: STRONG_PASSWORD } },
  },
  'POST /auth/login': { auth: { mode: 'none', reason: PUBLIC_SIGN_IN }, invalid: { body: { email: 'a@b.test' } } },
  'POST /auth/login/form': {
    auth: { mode: 'none', reason: PUBLIC_SIGN_IN },
    // A form route reads forms only (JSON is 415): the invalid request is a form without its username.
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    invalid: { body: 'password=x' },
  },
  'POST /auth/refresh': {
    auth: { mode: 'none', reason: 'the refresh token (in the body, or the refresh cookie) is the credential' },
    invalid: { body: { refresh_token: '' } },
  },
  'POST /auth/logout': { invalid: { body: { logout_all: 'yes' } } },
  'GET /auth/me': {},
  'GET /auth/tenant': { permission: 'SERVICE_ADMIN' },
  'PATCH /auth/tenant': {
    permission: 'SERVICE_ADMIN',
    body: () => ({ registration: 'invite' }),
    invalid: { body: { registration: 'anyone' } },
  },
  'POST /auth/tenant/invites': {
    permission: 'SERVICE_ADMIN',
    body: () => ({ role: 'user' }),
    invalid: { body: { role: 'owner' } },
  },
  'GET /auth/tenant/invites': { permission: 'SERVICE_ADMIN' },
  'DELETE /auth/tenant/invites/:invite_id': {
    permission: 'SERVICE_ADMIN',
    fixture: async (owner) => ({ invite_id: (await createInvite(owner)).id }),
    invalid: { params: { invite_id: 'not-a-uuid' } },
  },
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
  'GET /auth/sso/login': {
    auth: { mode: 'none', reason: PUBLIC_SIGN_IN },
    invalid: { query: 'return_url=%2F%2Fevil.example' },
  },
  'GET /auth/sso/register': {
    auth: { mode: 'none', reason: 'starts sign-up at the provider for a caller without an account' },
    invalid: { query: 'return_url=javascript%3Aalert(1)' },
  },
  'GET /auth/sso/callback': {
    auth: { mode: 'none', reason: "the browser's return from the provider; state and code are the credentials" },
    invalid: { query: `state=${'s'.repeat(600)}` },
  },
  'POST /auth/sso/callback': {
    auth: { mode: 'none', reason: 'the provider token in the body is the credential' },
    invalid: { body: { token: '' } },
  },
  'POST /auth/sso/validate': {
    auth: { mode: 'none', reason: 'checks a provider token without creating a session' },
    invalid: { query: '' },
  },
  'GET /auth/sso/status': { auth: { mode: 'none', reason: 'reads the cookie or token when there is one' } },
  'GET /auth/sso/forgot-password': { auth: { mode: 'none', reason: "redirects to the provider's recovery page" } },
  'GET /auth/sso/logout': { auth: { mode: 'none', reason: 'ends whatever session the cookie names' } },
  'POST /auth/sso/back-channel-logout': {
    auth: { mode: 'none', reason: 'called by the provider; the signed logout token is the credential' },
    invalid: { body: { logout_token: 'x'.repeat(20_000) } },
    invalidAnswer: { status: 400, reason: 'OIDC Back-Channel Logout 1.0 answers every malformed request 400' },
  },
  'GET /auth/sso/front-channel-logout': {
    auth: { mode: 'none', reason: "loaded by the provider's logout page in the browser" },
    invalid: { query: `sub=${'x'.repeat(600)}` },
  },
  'POST /auth/sso/webhooks/idp-events': {
    auth: { mode: 'none', reason: 'called by the provider; X-IdP-Signature is the credential' },
    invalid: { body: { id: 1 } },
    invalidAnswer: {
      status: 401,
      reason: 'the signature is checked before the body, so an unsigned caller learns nothing',
    },
  },
  'POST /auth/verify-email': {},
  'POST /auth/resend-verification': {},
  'GET /auth/available-roles': {},
  'POST /auth/select-role': { invalid: { body: { role: '' } } },
};

runRouteGuards('auth', target, TABLE);
