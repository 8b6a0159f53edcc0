import { AppError } from '@routinely/platform';
import { z } from 'zod';
import type { CircuitBreaker } from '../domain/sso/circuit-breaker.js';
import type { RelyingParty } from './relying-party.js';

export interface ProviderRole {
  name: string;
  description: string | null;
}

/**
 * A role as the admin API lists it (Keycloak's RoleRepresentation). Keycloak leaves null fields out, so every key
 * but `name` may be missing (`description` of a role without one; `attributes` of the brief form) and keys this
 * service does not use (`id`, `composite`, `clientRole`, `containerId`, `attributes`, later ones) are ignored.
 * A role without a string name is not one this service can grant.
 */
const roleMappingSchema = z.object({
  name: z.string(),
  description: z
    .unknown()
    .optional()
    .transform((value) => (typeof value === 'string' ? value : null)),
});
/** `GET /clients?clientId=`: the matching clients; the first one's internal id is this client's. */
const clientsSchema = z.tuple([z.looseObject({ id: z.string().min(1) })], z.unknown());

export interface NewProviderUser {
  email: string;
  password: string;
  firstName?: string | undefined;
  lastName?: string | undefined;
}

/**
 * The provider's admin API: Keycloak's realm admin REST (`SSO_ADMIN_API_URL` = `.../admin/realms/<realm>`),
 * reached with a client-credentials token of the service's own client (it needs the realm-management roles
 * manage-users and view-clients).
 */
export class KeycloakAdmin {
  private clientUuid: string | undefined;

  constructor(
    private readonly baseUrl: string,
    private readonly rp: RelyingParty,
    private readonly breaker: CircuitBreaker,
  ) {}

  /** Creates the user at the provider and returns its id (the `sub` of its tokens). */
  async createUser(user: NewProviderUser): Promise<string> {
    const response = await this.request('POST', '/users', {
      username: user.email,
      email: user.email,
      firstName: user.firstName,
      lastName: user.lastName,
      enabled: true,
      emailVerified: false,
      requiredActions: ['VERIFY_EMAIL'],
      credentials: [{ type: 'password', value: user.password, temporary: false }],
    });
    if (response.status !== 201) throw providerRefused(response.status);
    const id = response.headers.get('location')?.split('/').pop();
    if (!id) throw providerRefused(response.status);
    return decodeURIComponent(id);
  }

  /** Sends the provider's verify-email action to the user. */
  async sendVerifyEmail(subject: string, redirectUri: string): Promise<void> {
    const query = new URLSearchParams({ client_id: this.rp.clientId, redirect_uri: redirectUri });
    const response = await this.request('PUT', `/users/${encodeURIComponent(subject)}/execute-actions-email?${query}`, [
      'VERIFY_EMAIL',
    ]);
    if (response.status === 404) throw new AppError('not_found', 'The account is not known to the identity provider');
    if (!response.ok) throw providerRefused(response.status);
  }

  /** The roles of this service's client the provider grants the user (effective, composites included). */
  async clientRoles(subject: string): Promise<ProviderRole[]> {
    const client = await this.ownClientUuid();
    const response = await this.request(
      'GET',
      `/users/${encodeURIComponent(subject)}/role-mappings/clients/${encodeURIComponent(client)}/composite`,
    );
    if (response.status === 404) return [];
    if (!response.ok) throw providerRefused(response.status);
    const listed = z.array(z.unknown()).safeParse(await response.json().catch(() => undefined));
    if (!listed.success) throw providerRefused(response.status);
    return listed.data.flatMap((entry) => {
      const role = roleMappingSchema.safeParse(entry);
      return role.success ? [role.data] : [];
    });
  }

  private async ownClientUuid(): Promise<string> {
    if (this.clientUuid) return this.clientUuid;
    const response = await this.request('GET', `/clients?clientId=${encodeURIComponent(this.rp.clientId)}`);
    if (!response.ok) throw providerRefused(response.status);
    const clients = clientsSchema.safeParse(await response.json().catch(() => undefined));
    const client = clients.success ? clients.data[0] : undefined;
    if (!client) throw new AppError('sso_unavailable', 'The provider does not know this client');
    this.clientUuid = client.id;
    return client.id;
  }

  /** One admin call with the cached service token; a 401 (token revoked or expired early) gets one retry. */
  private async request(method: string, path: string, body?: unknown): Promise<Response> {
    const send = async (token: string) =>
      this.breaker.fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const first = await send(await this.rp.clientToken());
    if (first.status !== 401) return first;
    return send(await this.rp.clientToken(true));
  }
}

const providerRefused = (status: number) =>
  new AppError('sso_unavailable', `The identity provider's admin API refused the call (HTTP ${status})`);
