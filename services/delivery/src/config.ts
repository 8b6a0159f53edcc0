import {
  encryptionKeySchema,
  envBool,
  envMillisList,
  platformConfigSchema,
  refuseDevKeyInProduction,
} from '@routinely/platform';
import { z } from 'zod';
import { RETRY_WAITS_MS } from './domain/retry-policy.js';

export const configSchema = platformConfigSchema
  .extend({
    ENCRYPTION_KEY: encryptionKeySchema.describe('seals webhook secrets at rest'),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: envBool(false).describe(
      'development and tests only: allow `http` and private or loopback webhook targets',
    ),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000).describe('budget of one webhook try'),
    WEBHOOK_RETRY_WAITS_MS: envMillisList(RETRY_WAITS_MS).describe(
      "waits before a webhook's retries 1 to 8, in ms, comma-separated (the spec's 5 s, 30 s, 5 min, 1 h, 6 h, 12 h, 24 h, 24 h by default; tests shorten them)",
    ),
    WEBHOOK_MAX_ENDPOINTS_PER_USER: z.coerce
      .number()
      .int()
      .positive()
      .default(20)
      .describe('webhook endpoints one user may have (422 `too_many_endpoints` beyond)'),
    WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: z.coerce
      .number()
      .int()
      .positive()
      .default(2)
      .describe('sends to one endpoint in flight at once, across workers: a hanging receiver holds at most this many'),
    WEBHOOK_MAX_IN_FLIGHT_PER_USER: z.coerce
      .number()
      .int()
      .positive()
      .default(8)
      .describe('webhook sends of one user in flight at once over all their endpoints, so no user fills the lane'),
    WEBHOOK_CIRCUIT_THRESHOLD: z.coerce
      .number()
      .int()
      .positive()
      .default(5)
      .describe(
        "consecutive failed tries that open an endpoint's circuit (its deliveries pause; bell `webhook.endpoint_failing`)",
      ),
    WEBHOOK_CIRCUIT_OPEN_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(60_000)
      .describe('first pause of an open circuit; doubled after each failed half-open probe, at most one hour'),
    SMTP_URL: z
      .string()
      .optional()
      .describe(
        '`smtp(s)://user:pass@host:port` for reminder emails; unset: the local `email_outbox` table and the log',
      ),
    EMAIL_FROM: z.string().default('Routinely <no-reply@routinely.local>').describe('sender of reminder emails'),
    DELIVERY_WORKERS_ENABLED: envBool(true).describe('run the reminder and delivery workers in this process'),
    DELIVERY_LEASE_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(60_000)
      .describe('how long a claimed delivery stays invisible to other workers; must exceed WEBHOOK_TIMEOUT_MS'),
    // Firing is driven by a timer armed for the next due row and by LISTEN/NOTIFY; the poll only backs them up.
    DELIVERY_POLL_MS: z.coerce.number().int().positive().default(1_000).describe('safety-net poll of the workers'),
    DELIVERY_BATCH_SIZE: z.coerce
      .number()
      .int()
      .positive()
      .default(200)
      .describe('reminders fired or deliveries claimed per pass'),
    DELIVERY_CONCURRENCY: z.coerce
      .number()
      .int()
      .positive()
      .default(64)
      .describe('deliveries one process sends at once'),
  })
  .superRefine((config, ctx) => {
    refuseDevKeyInProduction(config, ctx);
    // A lease shorter than a send lets a second worker claim a delivery whose first try is still in flight.
    if (config.DELIVERY_LEASE_MS <= config.WEBHOOK_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', path: ['DELIVERY_LEASE_MS'], message: 'must be longer than WEBHOOK_TIMEOUT_MS' });
    }
  });
export type DeliveryConfig = z.infer<typeof configSchema>;
