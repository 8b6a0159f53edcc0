import {
  encryptionKeySchema,
  envBool,
  httpUrlSchema,
  optionalEnv,
  originListSchema,
  platformConfigSchema,
  refuseDevKeyInProduction,
} from '@routinely/platform';
import { z } from 'zod';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** The auth service's environment. Every variable has a default so the all-in-one starts with none set. */
export const configSchema = platformConfigSchema
  .extend({
    /** 32 bytes, base64: encrypts signing keys and TOTP secrets at rest (AES-256-GCM). */
    ENCRYPTION_KEY: encryptionKeySchema,
    ACCESS_TOKEN_TTL_SECONDS: positiveInt(900),
    REFRESH_TOKEN_TTL_SECONDS: positiveInt(30 * 24 * 3600),
    MFA_TOKEN_TTL_SECONDS: positiveInt(300),
    MFA_ISSUER: z.string().default('Routinely'),
    /** argon2id cost; the floor is OWASP's minimum (19 MiB, 2 passes). */
    PASSWORD_MEMORY_KIB: z.coerce.number().int().min(19456).default(19456),
    PASSWORD_TIME_COST: z.coerce.number().int().min(2).default(2),
    /** Failed logins one IP may make against one account before that pair is blocked. */
    LOGIN_MAX_FAILURES_PER_ACCOUNT_IP: positiveInt(5),
    /** Failed logins one IP may make across all accounts. */
    LOGIN_MAX_FAILURES_PER_IP: positiveInt(50),
    /** Failures against one account (all IPs) after which its logins are slowed down, never locked. */
    LOGIN_SLOWDOWN_AFTER_ACCOUNT_FAILURES: positiveInt(10),
    LOGIN_FAILURE_WINDOW_SECONDS: positiveInt(15 * 60),
    /** How long GET /auth/me may serve a profile from memory (invalidated on this process's own writes). */
    PROFILE_CACHE_TTL_MS: z.coerce.number().int().min(0).default(2000),
    /** The host's key scope for Redis (see the host config): login counters of instances sharing Redis stay apart. */
    INFRA_NAMESPACE: z.string().default(''),
    COOKIE_SECURE: envBool(false),

    // Single sign-on (OpenID Connect). Without SSO_ISSUER_URL, SSO is "not configured" (docs/adr/014).
    /** The provider's issuer; discovery reads `{issuer}/.well-known/openid-configuration`. */
    // Kept exactly as given: it must equal the provider's `iss` (some providers end theirs with a slash).
    SSO_ISSUER_URL: optionalEnv(z.url({ protocol: /^https?$/ })),
    SSO_CLIENT_ID: z.string().min(1).default('routinely'),
    /** Confidential client secret; without one the client is public (PKCE only) and the admin API is off. */
    SSO_CLIENT_SECRET: optionalEnv(z.string().min(1)),
    /** Externally visible base URL; the redirect URI is `{PUBLIC_BASE_URL}/api/v1/auth/sso/callback`. */
    PUBLIC_BASE_URL: httpUrlSchema.default('http://localhost:8080'),
    /** HMAC key of inbound IdP events (X-IdP-Signature); without it every event is refused. */
    SSO_WEBHOOK_SECRET: optionalEnv(z.string().min(16)),
    /** Comma list of origins a return_url may point at, besides PUBLIC_BASE_URL's. */
    SSO_ALLOWED_RETURN_ORIGINS: originListSchema,
    /** Keycloak realm admin REST base, e.g. https://idp/admin/realms/acme. */
    SSO_ADMIN_API_URL: optionalEnv(httpUrlSchema),
    /** Each provider call is abandoned (and counts as a failure) after this long. */
    SSO_PROVIDER_TIMEOUT_MS: positiveInt(5000),
    SSO_BREAKER_FAILURE_THRESHOLD: positiveInt(5),
    SSO_BREAKER_OPEN_SECONDS: positiveInt(30),
    /**
     * Plain-http issuers are refused in production (tokens would cross the network in the clear); elsewhere
     * they are allowed so a local fake provider works.
     */
    SSO_ALLOW_HTTP_ISSUER: envBool(false),
  })
  .superRefine(refuseDevKeyInProduction);

export type AuthConfig = z.infer<typeof configSchema>;
