// What tests of any package need from the platform (`@routinely/platform/testing`): real access tokens its
// verifier accepts, and a guard for values a test expects. Not part of the production entry point.
import { randomUUID } from 'node:crypto';
import { createLocalJWKSet, exportJWK, generateKeyPair, type JSONWebKeySet, type JWK, SignJWT } from 'jose';
import {
  type Clock,
  createTokenVerifier,
  MemoryRevocationStore,
  type Permission,
  permissionsForRoles,
  type RevocationStore,
  systemClock,
  type TokenVerifier,
} from './index.js';

export interface TestUser {
  userId: string;
  tenantId: string;
  email: string;
  roles: string[];
  permissions: string[];
  sessionId: string;
}

/**
 * An Ed25519 key pair standing in for the auth service's signing key, so one service's integration tests
 * can mint real access tokens its production verifier accepts.
 */
export class TestTokens {
  readonly issuer = 'routinely';
  readonly audience = 'routinely-api';
  readonly revocations: RevocationStore;
  private constructor(
    private readonly privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'],
    readonly jwks: JSONWebKeySet,
    private readonly clock: Clock,
  ) {
    this.revocations = new MemoryRevocationStore(() => clock.now().getTime());
  }

  static async create(clock: Clock = systemClock): Promise<TestTokens> {
    const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'EdDSA', use: 'sig' };
    return new TestTokens(privateKey, { keys: [jwk] }, clock);
  }

  verifier(): TokenVerifier {
    return createTokenVerifier({
      getKey: createLocalJWKSet(this.jwks),
      issuer: this.issuer,
      audience: this.audience,
      revocations: this.revocations,
      clock: this.clock,
    });
  }

  /** A user of `tenantId` (a new tenant when omitted) with the given roles or explicit permission codes. */
  user(options: { tenantId?: string; roles?: string[]; permissions?: Permission[]; email?: string } = {}): TestUser {
    const roles = options.roles ?? ['user'];
    const userId = randomUUID();
    return {
      userId,
      tenantId: options.tenantId ?? randomUUID(),
      email: options.email ?? `${userId.slice(0, 8)}@example.test`,
      roles,
      permissions: options.permissions ?? permissionsForRoles(roles),
      sessionId: randomUUID(),
    };
  }

  async token(user: TestUser, ttlSeconds = 900): Promise<string> {
    const now = Math.floor(this.clock.now().getTime() / 1000);
    return new SignJWT({
      email: user.email,
      tenant_id: user.tenantId,
      roles: user.roles,
      permissions: user.permissions,
      sid: user.sessionId,
      typ: 'access',
    })
      .setProtectedHeader({ alg: 'EdDSA', kid: 'test-key' })
      .setSubject(user.userId)
      .setIssuer(this.issuer)
      .setAudience(this.audience)
      .setJti(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .sign(this.privateKey);
  }

  /** `Authorization` header for a user. */
  async auth(user: TestUser): Promise<{ authorization: string }> {
    return { authorization: `Bearer ${await this.token(user)}` };
  }
}

/** The value, or a failed test naming what was missing: tests read `defined(rows[0], 'the row')`, never `rows[0]!`. */
export function defined<T>(value: T | null | undefined, what = 'value'): T {
  if (value === null || value === undefined) throw new Error(`expected ${what} to be present`);
  return value;
}
