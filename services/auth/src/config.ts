import {
  encryptionKeySchema,
  envBool,
  envPositiveInt,
  httpUrlSchema,
  optionalEnv,
  originListSchema,
  platformConfigSchema,
  refuseDevKeyInProduction,
} from '@routinely/platform';
import { z } from 'zod';

/** The auth service's environment. Every variable has a default so the all-in-one starts with none set. */
export const configSchema = platformConfigSchema
  .extend({
    ENCRYPTION_KEY: encryptionKeySchema.describe('seals token signing keys and TOTP seeds at rest'),
    ACCESS_TOKEN_TTL_SECONDS: envPositiveInt(900).describe('access token lifetime'),
    REFRESH_TOKEN_TTL_SECONDS: envPositiveInt(30 * 24 * 3600).describe('refresh token lifetime (absolute, per family)'),
    REFRESH_REUSE_GRACE_S: z.coerce
      .number()
      .int()
      .min(0)
      .max(60)
      .default(10)
      .describe(
        'seconds after a rotation in which the rotated refresh token still refreshes (two tabs refreshing at once); a reuse after it revokes the family; 0: off',
      ),
    MFA_TOKEN_TTL_SECONDS: envPositiveInt(300).describe('lifetime of the `mfa_token` between password and TOTP'),
    MFA_ISSUER: z.string().default('Routinely').describe('issuer shown by authenticator apps'),
    // The floor is OWASP's minimum for argon2id (19 MiB, 2 passes).
    PASSWORD_MEMORY_KIB: z.coerce
      .number()
      .int()
      .min(19456)
      .default(19456)
      .describe('argon2id memory cost of password hashes'),
    PASSWORD_TIME_COST: z.coerce.number().int().min(2).default(2).describe('argon2id passes of password hashes'),
    LOGIN_MAX_FAILURES_PER_ACCOUNT_IP: envPositiveInt(5).describe(
      'failed logins one IP may make against one account before that pair is blocked',
    ),
    LOGIN_MAX_FAILURES_PER_IP: envPositiveInt(50).describe('failed logins one IP may make across all accounts'),
    LOGIN_SLOWDOWN_AFTER_ACCOUNT_FAILURES: envPositiveInt(10).describe(
      "failures against one account (all IPs) after which its logins are slowed down (never locked, so nobody can lock another's account)",
    ),
    LOGIN_FAILURE_WINDOW_SECONDS: envPositiveInt(15 * 60).describe('window the login failure counters cover'),
    PROFILE_CACHE_TTL_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(2000)
      .describe("how long `GET /auth/me` may serve a profile from memory (invalidated on this process's own writes)"),
    INFRA_NAMESPACE: z
      .string()
      .default('')
      .describe('login counters of instances sharing one Redis stay apart under it'),
    COOKIE_SECURE: envBool(false).describe(
      'mark cookies `Secure` on plain http too (they always are in production or with an https PUBLIC_BASE_URL)',
    ),

    // Single sign-on (OpenID Connect). Without SSO_ISSUER_URL, SSO is "not configured" (docs/adr/014).
    // Kept exactly as given: it must equal the provider's `iss` (some providers end theirs with a slash).
    SSO_ISSUER_URL: optionalEnv(z.url({ protocol: /^https?$/ })).describe(
      "the OpenID provider's issuer (discovery at `{issuer}/.well-known/openid-configuration`); unset: SSO routes answer 503 `sso_unavailable`",
    ),
    SSO_CLIENT_ID: z.string().min(1).default('routinely').describe('OIDC client id'),
    SSO_CLIENT_SECRET: optionalEnv(z.string().min(1)).describe(
      'confidential client secret; without one the client is public (PKCE only) and the admin API is off',
    ),
    PUBLIC_BASE_URL: httpUrlSchema
      .default('http://localhost:8080')
      .describe('the SSO redirect URI is `{PUBLIC_BASE_URL}/api/v1/auth/sso/callback`'),
    SSO_WEBHOOK_SECRET: optionalEnv(z.string().min(16)).describe(
      'HMAC key of inbound IdP events (`X-IdP-Signature`); without it every event is refused',
    ),
    SSO_ALLOWED_RETURN_ORIGINS: originListSchema.describe(
      "comma list of origins an SSO `return_url` may point at, besides PUBLIC_BASE_URL's",
    ),
    SSO_ADMIN_API_URL: optionalEnv(httpUrlSchema).describe(
      'Keycloak realm admin REST base (`https://idp/admin/realms/acme`), reached with a client-credentials token',
    ),
    SSO_PROVIDER_TIMEOUT_MS: envPositiveInt(5000).describe(
      'each provider call is abandoned (and counts as a circuit failure) after this long',
    ),
    SSO_BREAKER_FAILURE_THRESHOLD: envPositiveInt(5).describe('provider failures in a row that open the circuit'),
    SSO_BREAKER_OPEN_SECONDS: envPositiveInt(30).describe('how long an open circuit waits before one trial call'),
    // Outside production a plain-http issuer is always allowed, so a local fake provider works.
    SSO_ALLOW_HTTP_ISSUER: envBool(false).describe(
      'allow a plain-http SSO_ISSUER_URL when NODE_ENV=production (tokens would cross the network in the clear)',
    ),
  })
  .superRefine(refuseDevKeyInProduction);

export type AuthConfig = z.infer<typeof configSchema>;
