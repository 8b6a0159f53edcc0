import { encryptionKeySchema, envBool, platformConfigSchema, refuseDevKeyInProduction } from '@routinely/platform';
import { z } from 'zod';

export const configSchema = platformConfigSchema
  .extend({
    /** base64 of 32 bytes; AES-256-GCM key for webhook secrets at rest. */
    ENCRYPTION_KEY: encryptionKeySchema,
    /** Allows http and private/loopback webhook targets. Development and tests only. */
    WEBHOOK_ALLOW_PRIVATE_TARGETS: envBool(false),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    /** Endpoints one user may have (422 too_many_endpoints beyond). */
    WEBHOOK_MAX_ENDPOINTS_PER_USER: z.coerce.number().int().positive().default(20),
    /** Sends to one endpoint in flight at once, across workers: a hanging receiver holds at most this many. */
    WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: z.coerce.number().int().positive().default(2),
    /** Webhook sends of one user in flight at once over all their endpoints, so no user fills the lane. */
    WEBHOOK_MAX_IN_FLIGHT_PER_USER: z.coerce.number().int().positive().default(8),
    /** Consecutive failed tries after which an endpoint's circuit opens (its deliveries pause). */
    WEBHOOK_CIRCUIT_THRESHOLD: z.coerce.number().int().positive().default(5),
    /** First pause of an open circuit; doubled after each failed half-open probe, at most one hour. */
    WEBHOOK_CIRCUIT_OPEN_MS: z.coerce.number().int().positive().default(60_000),
    /** smtp(s)://user:pass@host:port; without it mail goes to the local email_outbox table and the log. */
    SMTP_URL: z.string().optional(),
    EMAIL_FROM: z.string().default('Routinely <no-reply@routinely.local>'),
    /** Runs the reminder and delivery workers in this process. */
    DELIVERY_WORKERS_ENABLED: envBool(true),
    /** How long a claimed delivery stays invisible to other workers; must exceed WEBHOOK_TIMEOUT_MS. */
    DELIVERY_LEASE_MS: z.coerce.number().int().positive().default(60_000),
    /** Fallback poll; firing is driven by a timer armed for the next due row and by LISTEN/NOTIFY. */
    DELIVERY_POLL_MS: z.coerce.number().int().positive().default(1_000),
    DELIVERY_BATCH_SIZE: z.coerce.number().int().positive().default(200),
    DELIVERY_CONCURRENCY: z.coerce.number().int().positive().default(64),
  })
  .superRefine((config, ctx) => {
    refuseDevKeyInProduction(config, ctx);
    // A lease shorter than a send lets a second worker claim a delivery whose first try is still in flight.
    if (config.DELIVERY_LEASE_MS <= config.WEBHOOK_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', path: ['DELIVERY_LEASE_MS'], message: 'must be longer than WEBHOOK_TIMEOUT_MS' });
    }
  });
export type DeliveryConfig = z.infer<typeof configSchema>;
