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

/** The integration service's environment (names fixed by the contract, area C "integrations"). */
export const configSchema = platformConfigSchema
  .extend({
    /** base64 of 32 bytes; seals OAuth tokens and push secrets at rest. */
    ENCRYPTION_KEY: encryptionKeySchema,
    /** Externally visible base URL: redirect URI and push addresses are built from it. */
    PUBLIC_BASE_URL: httpUrlSchema.default('http://localhost:8080'),
    /** Comma list of origins a return_url may point at, besides PUBLIC_BASE_URL's. */
    OAUTH_ALLOWED_RETURN_ORIGINS: originListSchema,
    GOOGLE_CLIENT_ID: optionalEnv(z.string().min(1)),
    GOOGLE_CLIENT_SECRET: optionalEnv(z.string().min(1)),
    GOOGLE_AUTH_URL: httpUrlSchema.default('https://accounts.google.com/o/oauth2/v2/auth'),
    GOOGLE_TOKEN_URL: httpUrlSchema.default('https://oauth2.googleapis.com/token'),
    GOOGLE_REVOKE_URL: httpUrlSchema.default('https://oauth2.googleapis.com/revoke'),
    GOOGLE_API_BASE_URL: httpUrlSchema.default('https://www.googleapis.com'),
    MICROSOFT_CLIENT_ID: optionalEnv(z.string().min(1)),
    MICROSOFT_CLIENT_SECRET: optionalEnv(z.string().min(1)),
    MICROSOFT_AUTHORITY_URL: httpUrlSchema.default('https://login.microsoftonline.com/common'),
    MICROSOFT_GRAPH_URL: httpUrlSchema.default('https://graph.microsoft.com/v1.0'),
    /** Safety-net poll of every active integration (pushes only bring it forward). */
    INTEGRATION_POLL_INTERVAL_S: positiveInt(300),
    /** First sync window: this many days back and forward (Google timeMin/timeMax, Graph calendarView). */
    INTEGRATION_SYNC_PAST_DAYS: positiveInt(30),
    INTEGRATION_SYNC_FUTURE_DAYS: positiveInt(365),
    /** A provider's Retry-After up to this long is waited out inside a sync; longer ones end the sync (503). */
    INTEGRATION_MAX_INLINE_RETRY_MS: z.coerce.number().int().min(0).default(2_000),
    INTEGRATION_PROVIDER_TIMEOUT_MS: positiveInt(10_000),
    /**
     * A sync's lease on its integration lasts this long and is renewed every quarter of it while the sync
     * runs: a process that dies (kill -9) frees its integrations within this time.
     */
    INTEGRATION_SYNC_LEASE_MS: z.coerce.number().int().min(1_000).default(20_000),
    /** Runs the sync, polling and channel-renewal workers in this process. */
    INTEGRATION_WORKERS_ENABLED: envBool(true),
    INTEGRATION_OUTBOX_POLL_MS: positiveInt(250),
  })
  .superRefine(refuseDevKeyInProduction);
export type IntegrationConfig = z.infer<typeof configSchema>;
