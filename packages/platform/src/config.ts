import { z } from 'zod';

/** Parses an env object against a zod schema once, failing start-up with every bad variable named. */
export function parseConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}

export const envBool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => (v === undefined ? fallback : v === 'true' || v === '1'));

/** A positive whole number from the environment (counts, lifetimes, intervals), `fallback` when unset. */
export const envPositiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/**
 * A schedule of `length` waits in milliseconds, comma-separated (`5000,30000,...`), `fallback` when unset: the
 * retry schedules a deployment keeps at their documented defaults and a test shortens to milliseconds.
 */
export const envMillisList = (fallback: readonly number[]) =>
  z
    .string()
    .default(fallback.join(','))
    .transform((v) => v.split(',').map((part) => Number(part.trim())))
    .pipe(z.array(z.number().int().positive()).length(fallback.length, `must list ${fallback.length} waits in ms`));

/**
 * Development-only key (32 zero bytes) so the all-in-one starts with nothing set; `refuseDevKeyInProduction`
 * makes a production deployment that forgets ENCRYPTION_KEY fail at start instead of sealing under a public key.
 */
export const DEV_ENCRYPTION_KEY = Buffer.alloc(32).toString('base64');

/** `ENCRYPTION_KEY`: base64 of exactly 32 bytes (AES-256-GCM, see SecretBox). */
export const encryptionKeySchema = z
  .string()
  .default(DEV_ENCRYPTION_KEY)
  .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be base64 of exactly 32 bytes');

/** A cross-field rule for `.superRefine`: the development key is refused when NODE_ENV=production. */
export function refuseDevKeyInProduction(config: { NODE_ENV: string; ENCRYPTION_KEY: string }, ctx: z.RefinementCtx) {
  if (config.NODE_ENV === 'production' && config.ENCRYPTION_KEY === DEV_ENCRYPTION_KEY) {
    ctx.addIssue({ code: 'custom', path: ['ENCRYPTION_KEY'], message: 'must be set in production' });
  }
}

export const logLevelSchema = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

/** An env variable that may be unset or empty; both mean "not configured". */
export const optionalEnv = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/** An http(s) URL without trailing slashes (base URLs that paths are appended to). */
export const httpUrlSchema = z.url({ protocol: /^https?$/ }).transform((v) => v.replace(/\/+$/, ''));

/** A comma list of http(s) URLs, reduced to their origins (`scheme://host[:port]`). */
export const originListSchema = z
  .string()
  .default('')
  .transform((v) =>
    v
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.url({ protocol: /^https?$/ }).transform((o) => new URL(o).origin)));

/** Settings every service shares: logging, rate limits, token lifetimes, internal auth, infrastructure URLs. */
export const platformConfigSchema = z.object({
  NODE_ENV: z
    .string()
    .default('development')
    .describe('`production` refuses development-only defaults (the all-zero ENCRYPTION_KEY, plain-http SSO issuers)'),
  LOG_LEVEL: logLevelSchema.describe('pino level of the JSON log lines on stdout'),
  DATABASE_URL: z
    .string()
    .url()
    .optional()
    .describe('a real PostgreSQL (each service uses its own schema); unset: embedded PostgreSQL under DATA_DIR'),
  NATS_URL: z.string().optional().describe('NATS JetStream for domain events; unset: the in-process transport'),
  REDIS_URL: z
    .string()
    .optional()
    .describe('shared rate-limit counters, token revocations and login throttling; unset: in-process stores'),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(100).describe('requests per client IP per minute'),
  RATE_LIMIT_PER_HOUR: z.coerce.number().int().positive().default(1000).describe('requests per client IP per hour'),
  RATE_LIMIT_BURST: z.coerce.number().int().positive().default(20).describe('requests per client IP per second'),
  TRUST_PROXY: envBool(false).describe('take the client IP from `X-Forwarded-For` (behind Envoy)'),
  JWT_ISSUER: z.string().default('routinely').describe('`iss` of the access tokens'),
  JWT_AUDIENCE: z.string().default('routinely-api').describe('`aud` of the access tokens'),
  DEFAULT_TENANT_ID: z
    .string()
    .uuid()
    .default('01900000-0000-7000-8000-000000000001')
    .describe('tenant of registrations that name none (its registration policy starts `open`)'),
  // Its origin is always allowed for cookie-authenticated writes and CORS.
  PUBLIC_BASE_URL: z
    .string()
    .url()
    .default('http://localhost:8080')
    .describe(
      'externally visible base URL: SSO and OAuth redirect URIs, push addresses, feed URLs; its origin may send cookie-authenticated writes and make CORS calls; `https` makes cookies `Secure`',
    ),
  ALLOWED_ORIGINS: z
    .string()
    .default('')
    .refine(
      (value) =>
        value
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean)
          .every((o) => URL.canParse(o) && /^https?:$/.test(new URL(o).protocol)),
      'must be a comma list of http(s) origins',
    )
    .describe(
      'further origins (comma list, `https://app.example.com,http://localhost:5173`) allowed to send cookie-authenticated writes and make CORS calls',
    ),
});
export type PlatformConfig = z.infer<typeof platformConfigSchema>;
