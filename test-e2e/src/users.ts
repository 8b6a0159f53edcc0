import type { Schemas } from '@routinely/api-client';
import { apiFor, type Target } from './harness.js';

export interface E2eUser {
  id: string;
  email: string;
  tenantId: string;
  token: string;
  refreshToken: string;
}

const PASSWORD = 'correct horse battery';

/**
 * Registers a user through the real auth service: the admin of a new tenant, or, given a member of an existing
 * tenant (its admin), a user joining it by an invitation that admin makes (tenants are invite-only by default).
 */
export async function registerUser(target: Target, joining?: E2eUser): Promise<E2eUser> {
  const email = `e2e-${crypto.randomUUID().slice(0, 8)}@example.test`;
  const tenantId = joining?.tenantId ?? crypto.randomUUID();
  let inviteToken: string | undefined;
  if (joining) {
    const invite = await apiFor(target, joining.token).POST('/api/v1/auth/tenant/invites', { body: { email } });
    if (!invite.data) throw new Error(`invite failed: ${invite.response.status} ${JSON.stringify(invite.error)}`);
    inviteToken = invite.data.token;
  }
  const res = await apiFor(target).POST('/api/v1/auth/register', {
    body: { email, password: PASSWORD, tenant_id: tenantId, ...(inviteToken ? { invite_token: inviteToken } : {}) },
  });
  if (res.response.status !== 201 || !res.data) {
    throw new Error(`register failed: ${res.response.status} ${JSON.stringify(res.error)}`);
  }
  return {
    id: res.data.user.id,
    email,
    tenantId,
    token: res.data.access_token,
    refreshToken: res.data.refresh_token,
  };
}

type LoginAnswer = Schemas['TokenResponse'] | Schemas['MfaRequired'] | Schemas['CookieRefreshResponse'];

/**
 * The tokens of a login or refresh answer; e2e users have no second factor, so an MFA challenge is a failure,
 * and a refresh by the body's token answers tokens (a cookie refresh answers none).
 */
export function tokensOf(answer: LoginAnswer | undefined): Schemas['TokenResponse'] {
  if (!answer || !('access_token' in answer)) throw new Error(`no tokens in the answer: ${JSON.stringify(answer)}`);
  return answer;
}
