import { defineEntity, p } from '@routinely/db';
import { ssoEntities } from './sso-entities.js';
import { tenantEntities } from './tenant-entities.js';

/** A local account. Email is unique across tenants (see docs/adr/010), stored lower-cased. */
const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid().fieldName('tenant_id').index('users_tenant_idx'),
    email: p.string().length(320).unique('users_email_key'),
    name: p.string().length(200).nullable(),
    displayName: p.string().length(200).nullable().fieldName('display_name'),
    firstName: p.string().length(100).nullable().fieldName('first_name'),
    lastName: p.string().length(100).nullable().fieldName('last_name'),
    phone: p.string().length(50).nullable(),
    avatarUrl: p.string().length(2048).nullable().fieldName('avatar_url'),
    timezone: p.string().length(64).nullable(),
    locale: p.string().length(35).nullable(),
    authMethod: p.string().length(10).fieldName('auth_method'),
    passwordHash: p.string().length(255).nullable().fieldName('password_hash'),
    isActive: p.boolean().fieldName('is_active'),
    isVerified: p.boolean().fieldName('is_verified'),
    roles: p.json<string[]>(),
    /** Registration fields the contract does not name, kept as given. */
    extra: p.json<Record<string, unknown>>(),
    mfaEnabled: p.boolean().fieldName('mfa_enabled'),
    /** The confirmed TOTP seed, AES-256-GCM sealed with the user id as associated data. */
    mfaSecret: p.text().nullable().fieldName('mfa_secret'),
    /** A seed from /mfa/setup awaiting its first code. */
    mfaPendingSecret: p.text().nullable().fieldName('mfa_pending_secret'),
    /** The last TOTP time step accepted, so a code works once. */
    mfaLastStep: p.bigint('number').nullable().fieldName('mfa_last_step'),
    createdAt: p.datetime().fieldName('created_at'),
    updatedAt: p.datetime().fieldName('updated_at'),
  },
});

/** One login = one session = one refresh-token family; its id is the access token's `sid`. */
const Session = defineEntity({
  name: 'Session',
  tableName: 'sessions',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid().fieldName('tenant_id'),
    userId: p.uuid().fieldName('user_id').index('sessions_user_idx'),
    createdAt: p.datetime().fieldName('created_at'),
    /** Absolute end: rotation never extends a family. */
    expiresAt: p.datetime().fieldName('expires_at'),
    revokedAt: p.datetime().nullable().fieldName('revoked_at').index('sessions_revoked_at_idx'),
    revokedReason: p.string().length(50).nullable().fieldName('revoked_reason'),
  },
});

/** Refresh tokens, stored as sha256; `usedAt` set on rotation, and a second use revokes the family. */
const RefreshToken = defineEntity({
  name: 'RefreshToken',
  tableName: 'refresh_tokens',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid().fieldName('tenant_id'),
    sessionId: p.uuid().fieldName('session_id').index('refresh_tokens_session_idx'),
    userId: p.uuid().fieldName('user_id'),
    tokenHash: p.string().length(64).fieldName('token_hash').unique('refresh_tokens_hash_key'),
    createdAt: p.datetime().fieldName('created_at'),
    usedAt: p.datetime().nullable().fieldName('used_at'),
  },
});

/** Single-use MFA backup codes, stored as keyed hashes. */
const BackupCode = defineEntity({
  name: 'BackupCode',
  tableName: 'mfa_backup_codes',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid().fieldName('tenant_id'),
    userId: p.uuid().fieldName('user_id').index('mfa_backup_codes_user_idx'),
    codeHash: p.string().length(64).fieldName('code_hash'),
    createdAt: p.datetime().fieldName('created_at'),
    usedAt: p.datetime().nullable().fieldName('used_at'),
  },
});

/** The second step of a login with MFA on: an opaque, short-lived, single-purpose token with an attempt budget. */
const MfaChallenge = defineEntity({
  name: 'MfaChallenge',
  tableName: 'mfa_challenges',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid().fieldName('tenant_id'),
    userId: p.uuid().fieldName('user_id'),
    tokenHash: p.string().length(64).fieldName('token_hash').unique('mfa_challenges_hash_key'),
    attempts: p.integer(),
    expiresAt: p.datetime().fieldName('expires_at'),
    consumedAt: p.datetime().nullable().fieldName('consumed_at'),
  },
});

/**
 * Ed25519 signing keys. System-wide, so no tenant_id: every tenant's tokens are verified with the same JWKS.
 * The private key (PKCS#8 PEM) is AES-256-GCM sealed with the key id as associated data.
 */
const SigningKey = defineEntity({
  name: 'SigningKey',
  tableName: 'signing_keys',
  properties: {
    kid: p.string().length(64).primary(),
    publicJwk: p.json<Record<string, unknown>>().fieldName('public_jwk'),
    privateKey: p.text().fieldName('private_key'),
    createdAt: p.datetime().fieldName('created_at'),
    retiredAt: p.datetime().nullable().fieldName('retired_at'),
  },
});

export const authEntities = [
  User,
  Session,
  RefreshToken,
  BackupCode,
  MfaChallenge,
  SigningKey,
  ...ssoEntities,
  ...tenantEntities,
];
