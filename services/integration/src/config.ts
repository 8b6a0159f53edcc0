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

/** The integration service's environment (names fixed by the contract, area C "integrations"). */
export const configSchema = platformConfigSchema
  .extend({
    ENCRYPTION_KEY: encryptionKeySchema.describe('seals OAuth tokens and push secrets at rest'),
    PUBLIC_BASE_URL: httpUrlSchema
      .default('http://localhost:8080')
      .describe('the OAuth redirect URI and push addresses are built from it'),
    OAUTH_ALLOWED_RETURN_ORIGINS: originListSchema.describe(
      "comma list of origins an integration `return_url` may point at, besides PUBLIC_BASE_URL's",
    ),
    GOOGLE_CLIENT_ID: optionalEnv(z.string().min(1)).describe(
      'Google OAuth client; unset: `oauth/start` answers 422 `provider_not_configured`',
    ),
    GOOGLE_CLIENT_SECRET: optionalEnv(z.string().min(1)).describe('Google OAuth client secret'),
    GOOGLE_AUTH_URL: httpUrlSchema
      .default('https://accounts.google.com/o/oauth2/v2/auth')
      .describe("Google's authorization endpoint"),
    GOOGLE_TOKEN_URL: httpUrlSchema.default('https://oauth2.googleapis.com/token').describe("Google's token endpoint"),
    GOOGLE_REVOKE_URL: httpUrlSchema
      .default('https://oauth2.googleapis.com/revoke')
      .describe("Google's token revocation endpoint"),
    GOOGLE_API_BASE_URL: httpUrlSchema
      .default('https://www.googleapis.com')
      .describe('base of the Google Calendar v3 API'),
    MICROSOFT_CLIENT_ID: optionalEnv(z.string().min(1)).describe(
      'Microsoft identity platform client; unset: `oauth/start` answers 422 `provider_not_configured`',
    ),
    MICROSOFT_CLIENT_SECRET: optionalEnv(z.string().min(1)).describe('Microsoft client secret'),
    MICROSOFT_AUTHORITY_URL: httpUrlSchema
      .default('https://login.microsoftonline.com/common')
      .describe('authority with `/oauth2/v2.0/authorize` and `/oauth2/v2.0/token` below it'),
    MICROSOFT_GRAPH_URL: httpUrlSchema.default('https://graph.microsoft.com/v1.0').describe('base of Microsoft Graph'),
    INTEGRATION_POLL_INTERVAL_S: envPositiveInt(300).describe(
      'safety-net poll of every active integration (pushes only bring it forward)',
    ),
    INTEGRATION_SYNC_PAST_DAYS: envPositiveInt(30).describe(
      'first sync window, days back (Google `timeMin`, Graph `startDateTime`)',
    ),
    INTEGRATION_SYNC_FUTURE_DAYS: envPositiveInt(365).describe(
      'first sync window, days ahead (Google `timeMax`, Graph `endDateTime`)',
    ),
    INTEGRATION_MAX_INLINE_RETRY_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(2_000)
      .describe(
        "a provider's `Retry-After` up to this long is waited out inside a sync; longer ones end the sync (503)",
      ),
    INTEGRATION_PROVIDER_TIMEOUT_MS: envPositiveInt(10_000).describe('budget of one provider call'),
    // Renewed every quarter of it while the sync runs.
    INTEGRATION_SYNC_LEASE_MS: z.coerce
      .number()
      .int()
      .min(1_000)
      .default(20_000)
      .describe(
        "how long a sync's lease on its integration lasts: a process that dies frees its integrations within it",
      ),
    INTEGRATION_WORKERS_ENABLED: envBool(true).describe(
      'run the sync, polling and channel-renewal workers in this process',
    ),
    INTEGRATION_WRITE_BACK_POLL_MS: envPositiveInt(1_000).describe(
      'how often the calendar write-back worker looks for pending task changes (a task event wakes it sooner)',
    ),
    INTEGRATION_WRITE_BACK_BACKOFF_MS: envPositiveInt(1_000).describe(
      'first backoff after a rate limit that names no Retry-After; doubles with each one in a row, up to 15 minutes',
    ),
    INTEGRATION_WRITE_BACK_CLAIM_MS: envPositiveInt(60_000).describe(
      "how long a worker holds the task changes it is writing; a process that died mid-call has them written again after this (the provider call's client key keeps it one event)",
    ),
    INTEGRATION_OUTBOX_POLL_MS: envPositiveInt(250).describe('how often the outbox relay looks for unpublished events'),
    INTEGRATION_CALENDAR_WAIT_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(60_000)
      .default(5_000)
      .describe(
        'how long a sync or disconnect on request waits for the task service to report its changes applied to the unified calendar before answering anyway (0: no wait)',
      ),
  })
  .superRefine(refuseDevKeyInProduction);
export type IntegrationConfig = z.infer<typeof configSchema>;
