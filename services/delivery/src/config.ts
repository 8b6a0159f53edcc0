import { envBool, platformConfigSchema } from '@routinely/platform';
import { z } from 'zod';

/** A fixed development key so the all-in-one starts with nothing set; production sets its own. */
const DEV_ENCRYPTION_KEY = Buffer.from('routinely-dev-only-encryption-k!').toString('base64');

export const configSchema = platformConfigSchema.extend({
  /** base64 of 32 bytes; AES-256-GCM key for webhook secrets at rest. */
  ENCRYPTION_KEY: z
    .string()
    .default(DEV_ENCRYPTION_KEY)
    .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be base64 of exactly 32 bytes'),
  /** Allows http and private/loopback webhook targets. Development and tests only. */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: envBool(false),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
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
});
export type DeliveryConfig = z.infer<typeof configSchema>;
