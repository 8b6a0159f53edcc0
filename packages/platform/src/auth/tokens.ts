import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey, errors as joseErrors, jwtVerify } from 'jose';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { RevocationStore } from './revocations.js';

/** The authenticated caller, as every service sees it. */
export interface Principal {
  userId: string;
  tenantId: string;
  email: string;
  roles: string[];
  permissions: string[];
  sessionId: string;
  tokenId: string;
  claims: Record<string, unknown>;
}

/**
 * Caches the auth service's JWKS and fetches it again when a token names a key id it does not know
 * (key rotation), at most once per `minRefreshMs`.
 */
export class JwksCache {
  private keySet: JWTVerifyGetKey | undefined;
  private kids = new Set<string>();
  private lastFetch = 0;
  private inflight: Promise<void> | undefined;
  constructor(
    private readonly fetchJwks: () => Promise<JSONWebKeySet>,
    private readonly minRefreshMs = 10_000,
  ) {}

  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    if (!this.keySet || (header.kid && !this.kids.has(header.kid) && Date.now() - this.lastFetch > this.minRefreshMs)) {
      await this.refresh();
    }
    if (!this.keySet) throw new AppError('service_unavailable', 'Signing keys unavailable');
    return this.keySet(header, token);
  };

  async refresh(): Promise<void> {
    this.inflight ??= (async () => {
      try {
        const jwks = await this.fetchJwks();
        this.keySet = createLocalJWKSet(jwks);
        this.kids = new Set(jwks.keys.map((k) => k.kid).filter((k): k is string => !!k));
        this.lastFetch = Date.now();
      } finally {
        this.inflight = undefined;
      }
    })();
    return this.inflight;
  }
}

export interface TokenVerifierOptions {
  getKey: JWTVerifyGetKey;
  issuer: string;
  audience: string;
  revocations: RevocationStore;
  clock: Clock;
}

export type TokenVerifier = (token: string) => Promise<Principal>;

/**
 * Verifies an EdDSA access token (signature, issuer, audience, expiry) and that its session is alive.
 * A token whose signature was verified once is remembered until it expires (bounded LRU), so a client
 * reusing its token pays a map lookup instead of an Ed25519 verification; the revocation check still runs
 * on every request.
 */
export function createTokenVerifier(options: TokenVerifierOptions & { cacheSize?: number }): TokenVerifier {
  const verified = new Map<string, { principal: Principal; expiresAtMs: number }>();
  const cacheSize = options.cacheSize ?? 10_000;

  async function verifySignature(token: string): Promise<{ principal: Principal; expiresAtMs: number }> {
    const cached = verified.get(token);
    if (cached) {
      if (cached.expiresAtMs > options.clock.now().getTime()) return cached;
      verified.delete(token);
      throw new AppError('invalid_token', 'Token expired');
    }
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, options.getKey, {
        algorithms: ['EdDSA'],
        issuer: options.issuer,
        audience: options.audience,
        currentDate: options.clock.now(),
        requiredClaims: ['sub', 'exp', 'iat', 'jti', 'sid', 'tenant_id'],
      }));
    } catch (error) {
      if (error instanceof AppError) throw error;
      const expired = error instanceof joseErrors.JWTExpired;
      throw new AppError('invalid_token', expired ? 'Token expired' : 'Invalid token');
    }
    if (payload.typ !== 'access') throw new AppError('invalid_token', 'Not an access token');
    const entry = {
      principal: {
        userId: String(payload.sub),
        tenantId: String(payload.tenant_id),
        email: String(payload.email ?? ''),
        roles: Array.isArray(payload.roles) ? payload.roles.map(String) : [],
        permissions: Array.isArray(payload.permissions) ? payload.permissions.map(String) : [],
        sessionId: String(payload.sid),
        tokenId: String(payload.jti),
        claims: payload,
      },
      expiresAtMs: Number(payload.exp) * 1000,
    };
    if (verified.size >= cacheSize) verified.delete(verified.keys().next().value as string);
    verified.set(token, entry);
    return entry;
  }

  return async (token) => {
    const { principal } = await verifySignature(token);
    if (await options.revocations.isSessionRevoked(principal.sessionId)) {
      throw new AppError('invalid_token', 'Token revoked');
    }
    return principal;
  };
}
