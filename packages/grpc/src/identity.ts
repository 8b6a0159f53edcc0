import { jwtVerify, SignJWT } from 'jose';

/** Who a call between services acts for: the calling service and, for user requests, the end user. */
export interface CallerIdentity {
  service: string;
  tenantId: string | null;
  userId: string | null;
  permissions: string[];
}

const AUDIENCE = 'routinely-internal';

/**
 * Calls between services carry a short-lived HS256 token signed with the shared internal secret. The
 * caller's tenant and user ride inside the signed token, never in loose metadata, so a method can trust
 * them only when the signature holds.
 */
export class InternalAuth {
  private readonly key: Uint8Array;
  constructor(
    secret: string,
    private readonly service: string,
  ) {
    if (secret.length < 32) throw new Error('INTERNAL_AUTH_SECRET must be at least 32 characters');
    this.key = new TextEncoder().encode(secret);
  }

  async sign(
    actor: { tenantId?: string | null; userId?: string | null; permissions?: string[] } = {},
  ): Promise<string> {
    return new SignJWT({
      tenant_id: actor.tenantId ?? null,
      user_id: actor.userId ?? null,
      permissions: actor.permissions ?? [],
    })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(`service:${this.service}`)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(this.key);
  }

  async verify(token: string): Promise<CallerIdentity> {
    const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], audience: AUDIENCE });
    const sub = String(payload.sub ?? '');
    if (!sub.startsWith('service:')) throw new Error('not a service token');
    return {
      service: sub.slice('service:'.length),
      tenantId: typeof payload.tenant_id === 'string' ? payload.tenant_id : null,
      userId: typeof payload.user_id === 'string' ? payload.user_id : null,
      permissions: Array.isArray(payload.permissions) ? payload.permissions.map(String) : [],
    };
  }
}
