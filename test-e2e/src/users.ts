import { call, type Target } from './harness.js';

export interface E2eUser {
  id: string;
  email: string;
  tenantId: string;
  token: string;
  refreshToken: string;
}

export const PASSWORD = 'correct horse battery';

/** Registers a user through the real auth service (a new tenant unless one is given). */
export async function registerUser(target: Target, tenantId: string = crypto.randomUUID()): Promise<E2eUser> {
  const email = `e2e-${crypto.randomUUID().slice(0, 8)}@example.test`;
  const res = await call(target, 'POST', '/api/v1/auth/register', {
    body: { email, password: PASSWORD, tenant_id: tenantId },
  });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${res.text}`);
  return { id: res.json.user.id, email, tenantId, token: res.json.access_token, refreshToken: res.json.refresh_token };
}
