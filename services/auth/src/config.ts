import { encryptionKeySchema, envBool, platformConfigSchema, refuseDevKeyInProduction } from '@routinely/platform';
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
    COOKIE_SECURE: envBool(false),
  })
  .superRefine(refuseDevKeyInProduction);

export type AuthConfig = z.infer<typeof configSchema>;
