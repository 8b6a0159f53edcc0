import { jwtVerify, SignJWT } from 'jose';

/** Who a call between services acts for: the calling service and, for user requests, the end user. */
export interface CallerIdentity {
  service: string;
  tenantId: string | null;
  userId: string | null;
  permissions: string[];
}

const AUDIENCE = 'routinely-internal';

/** Lifetime of a service token. */
const TOKEN_TTL_S = 60;
/** A signed token is sent again while it has at least this long left, so a receiver never sees it expire. */
const REUSE_MS = 30_000;
/** Tokens each cache holds at most (one per actor that called recently); past this it starts over. */
const CACHE_LIMIT = 10_000;

/**
 * Calls between services carry a short-lived HS256 token signed with the shared internal secret. The
 * caller's tenant and user ride inside the signed token, never in loose metadata, so a method can trust
 * them only when the signature holds.
 *
 * Both ends keep what they computed: the caller sends an actor's token again for half its life, and the
 * receiver remembers a token it verified until it expires (same bytes, same signature). A run of a routine
 * calls the task service several times for one user; signing and verifying each call cost 4% of the process's
 * CPU in the routines bench (ADR 055). Token times are wall-clock time, as JWT's are.
 */
export class InternalAuth {
  private readonly key: Uint8Array;
  private readonly signed = new Map<string, { token: string; reuseUntil: number }>();
  private readonly verified = new Map<string, { identity: CallerIdentity; expiresAt: number }>();
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
    const claims = {
      tenant_id: actor.tenantId ?? null,
      user_id: actor.userId ?? null,
      permissions: actor.permissions ?? [],
    };
    const key = JSON.stringify(claims);
    const kept = this.signed.get(key);
    if (kept && kept.reuseUntil > Date.now()) return kept.token;
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(`service:${this.service}`)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${TOKEN_TTL_S}s`)
      .sign(this.key);
    remember(this.signed, key, { token, reuseUntil: Date.now() + REUSE_MS });
    return token;
  }

  async verify(token: string): Promise<CallerIdentity> {
    const kept = this.verified.get(token);
    if (kept && kept.expiresAt > Date.now()) return kept.identity;
    const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], audience: AUDIENCE });
    const sub = String(payload.sub ?? '');
    if (!sub.startsWith('service:')) throw new Error('not a service token');
    const identity = {
      service: sub.slice('service:'.length),
      tenantId: typeof payload.tenant_id === 'string' ? payload.tenant_id : null,
      userId: typeof payload.user_id === 'string' ? payload.user_id : null,
      permissions: Array.isArray(payload.permissions) ? payload.permissions.map(String) : [],
    };
    if (typeof payload.exp === 'number') remember(this.verified, token, { identity, expiresAt: payload.exp * 1000 });
    return identity;
  }
}

function remember<V>(cache: Map<string, V>, key: string, value: V) {
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, value);
}
