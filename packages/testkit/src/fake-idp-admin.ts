import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { type FakeIdpRealm, readBody } from './fake-idp-http.js';
import type { FakeIdpClient, FakeIdpRole } from './fake-idp-store.js';

function json(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) {
  if (body === undefined) {
    res.writeHead(status, headers).end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/**
 * The slice of Keycloak's realm admin REST API the service uses, with Keycloak's paths, status codes and
 * bodies. Callers authenticate with a client-credentials access token issued by this provider.
 */
export async function handleAdminApi(idp: FakeIdpRealm, provider: Provider, req: IncomingMessage, res: ServerResponse) {
  const token = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const grant = token ? await provider.ClientCredentials.find(String(token)) : undefined;
  if (!grant?.clientId || !idp.store.clients.has(grant.clientId))
    return json(res, 401, { error: 'HTTP 401 Unauthorized' });

  const url = new URL(req.url ?? '/', idp.origin);
  const path = url.pathname.slice(`/admin/realms/${idp.realm}`.length);
  const method = req.method ?? 'GET';
  const store = idp.store;
  const userMatch = /^\/users\/([^/]+)(\/.*)?$/.exec(path);
  const account = userMatch ? store.accounts.get(decodeURIComponent(userMatch[1] ?? '')) : undefined;
  const rest = userMatch?.[2] ?? '';

  if (path === '/users' && method === 'POST') {
    const body = JSON.parse((await readBody(req)) || '{}') as {
      email?: string;
      firstName?: string;
      lastName?: string;
      enabled?: boolean;
      emailVerified?: boolean;
      requiredActions?: string[];
      credentials?: { type: string; value: string }[];
    };
    if (!body.email) return json(res, 400, { errorMessage: 'email is required' });
    if (store.byEmail(body.email)) return json(res, 409, { errorMessage: 'User exists with same email' });
    const created = store.addAccount({
      email: body.email,
      password: body.credentials?.find((c) => c.type === 'password')?.value ?? '',
      emailVerified: body.emailVerified ?? false,
      enabled: body.enabled ?? true,
      givenName: body.firstName,
      familyName: body.lastName,
      requiredActions: body.requiredActions ?? [],
    });
    return json(res, 201, undefined, { location: `${idp.adminUrl}/users/${created.sub}` });
  }
  if (path === '/users' && method === 'GET') {
    const email = url.searchParams.get('email');
    const found = [...store.accounts.values()].filter((a) => !email || a.email === email.toLowerCase());
    return json(
      res,
      200,
      found.map((a) => ({
        id: a.sub,
        username: a.email,
        email: a.email,
        emailVerified: a.emailVerified,
        enabled: a.enabled,
      })),
    );
  }
  if (path === '/clients' && method === 'GET') {
    const clientId = url.searchParams.get('clientId');
    const clients = [...store.clients.values()].filter((c) => !clientId || c.clientId === clientId);
    return json(
      res,
      200,
      clients.map((c) => ({ id: c.uuid, clientId: c.clientId })),
    );
  }
  if (userMatch && !account) return json(res, 404, { error: 'User not found' });
  if (account && rest === '' && method === 'GET') {
    return json(res, 200, { id: account.sub, email: account.email, emailVerified: account.emailVerified });
  }
  if (account && (rest === '/execute-actions-email' || rest === '/send-verify-email') && method === 'PUT') {
    const body =
      rest === '/send-verify-email' ? ['VERIFY_EMAIL'] : (JSON.parse((await readBody(req)) || '[]') as string[]);
    store.sentActions.push({ sub: account.sub, actions: body });
    return json(res, 204);
  }
  const roleMatch = /^\/role-mappings\/clients\/([^/]+)(\/composite)?$/.exec(rest);
  if (account && roleMatch) {
    const client = [...store.clients.values()].find((c) => c.uuid === roleMatch[1]);
    if (!client) return json(res, 404, { error: 'Client not found' });
    const defined = client.roles ?? [];
    if (method === 'POST') {
      const roles = JSON.parse((await readBody(req)) || '[]') as { name: string }[];
      if (roles.some((role) => !defined.some((d) => d.name === role.name)))
        return json(res, 404, { error: 'Role not found' });
      const granted = new Set(account.clientRoles[client.clientId] ?? []);
      for (const role of roles) granted.add(role.name);
      account.clientRoles[client.clientId] = [...granted];
      return json(res, 204);
    }
    const granted = new Set(account.clientRoles[client.clientId] ?? []);
    const brief = url.searchParams.get('briefRepresentation') !== 'false';
    return json(
      res,
      200,
      defined.filter((role) => granted.has(role.name)).map((role) => roleRepresentation(client, role, brief)),
    );
  }
  return json(res, 404, { error: 'Not found' });
}

/**
 * A client role as Keycloak's `ModelToRepresentation` writes it: its JSON leaves out null fields, so a role
 * without a description has no `description` key; the brief form (the default of `.../composite`) has no
 * `attributes`, the full one (`briefRepresentation=false`) has them, `{}` when none.
 */
function roleRepresentation(client: FakeIdpClient & { uuid: string }, role: FakeIdpRole, brief: boolean) {
  return {
    id: roleId(client.uuid, role.name),
    name: role.name,
    ...(role.description ? { description: role.description } : {}),
    composite: false,
    clientRole: true,
    containerId: client.uuid,
    ...(brief ? {} : { attributes: role.attributes ?? {} }),
  };
}

/** A stable UUID-shaped id per client role (Keycloak's ids are UUIDs). */
function roleId(clientUuid: string, name: string): string {
  const hex = createHash('sha256').update(`${clientUuid}:${name}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
