import { randomBytes } from 'node:crypto';
import type { Logger } from '@routinely/platform';
import { createTestDatabase, quietLogger, testHostEnv, uniqueName } from '@routinely/testkit';
import { startAllInOne } from '../src/index.js';

/** The all-in-one on a fresh database against the real servers, with its namespace and database URL. */
export async function startTestAllInOne(options: { env?: Record<string, string>; logger?: Logger } = {}) {
  const db = await createTestDatabase();
  const namespace = uniqueName('obs');
  const running = await startAllInOne({
    env: { ...process.env, ...testHostEnv(db.url, namespace), ...options.env },
    logger: options.logger ?? quietLogger(),
  });
  return {
    running,
    databaseUrl: db.url,
    namespace,
    close: async () => {
      await running.close();
      await db.drop();
    },
  };
}

/** JSON in and out against the running listener. */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> & { [k: string]: unknown } }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : {} };
}

/**
 * Registers a user through the auth service: the admin of a new tenant, or, given that tenant's admin, a user
 * joining by the admin's invitation (tenants are invite-only by default).
 */
export async function register(baseUrl: string, joining?: { tenantId: string; token: string }) {
  const email = `obs-${randomBytes(4).toString('hex')}@example.test`;
  const tenantId = joining?.tenantId ?? crypto.randomUUID();
  let inviteToken: string | undefined;
  if (joining) {
    const invite = await call(baseUrl, 'POST', '/api/v1/auth/tenant/invites', {
      token: joining.token,
      body: { email },
    });
    if (invite.status !== 201) throw new Error(`invite failed: ${invite.status}`);
    inviteToken = String(invite.json.token);
  }
  const res = await call(baseUrl, 'POST', '/api/v1/auth/register', {
    body: {
      email,
      password: 'correct horse battery',
      tenant_id: tenantId,
      ...(inviteToken ? { invite_token: inviteToken } : {}),
    },
  });
  if (res.status !== 201) throw new Error(`register failed: ${res.status}`);
  const user = res.json.user as { id: string };
  return { id: user.id, email, tenantId, token: String(res.json.access_token) };
}
