import { call, type Target } from './harness.js';

export interface E2eUser {
  id: string;
  email: string;
  tenantId: string;
  token: string;
  refreshToken: string;
}

export const PASSWORD = 'correct horse battery';

/**
 * Registers a user through the real auth service: the admin of a new tenant, or, given a member of an existing
 * tenant (its admin), a user joining it by an invitation that admin makes (tenants are invite-only by default).
 */
export async function registerUser(target: Target, joining?: E2eUser): Promise<E2eUser> {
  const email = `e2e-${crypto.randomUUID().slice(0, 8)}@example.test`;
  const tenantId = joining?.tenantId ?? crypto.randomUUID();
  let inviteToken: string | undefined;
  if (joining) {
    const invite = await call(target, 'POST', '/api/v1/auth/tenant/invites', { token: joining.token, body: { email } });
    if (invite.status !== 201) throw new Error(`invite failed: ${invite.status} ${invite.text}`);
    inviteToken = invite.json.token;
  }
  const res = await call(target, 'POST', '/api/v1/auth/register', {
    body: { email, password: PASSWORD, tenant_id: tenantId, ...(inviteToken ? { invite_token: inviteToken } : {}) },
  });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${res.text}`);
  return { id: res.json.user.id, email, tenantId, token: res.json.access_token, refreshToken: res.json.refresh_token };
}
