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

/** Settings every service shares: logging, rate limits, token lifetimes, internal auth, infrastructure URLs. */
export const platformConfigSchema = z.object({
  NODE_ENV: z.string().default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z.string().url().optional(),
  NATS_URL: z.string().optional(),
  REDIS_URL: z.string().optional(),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(100),
  RATE_LIMIT_PER_HOUR: z.coerce.number().int().positive().default(1000),
  RATE_LIMIT_BURST: z.coerce.number().int().positive().default(20),
  TRUST_PROXY: envBool(false),
  JWT_ISSUER: z.string().default('routinely'),
  JWT_AUDIENCE: z.string().default('routinely-api'),
  DEFAULT_TENANT_ID: z.string().uuid().default('01900000-0000-7000-8000-000000000001'),
});
export type PlatformConfig = z.infer<typeof platformConfigSchema>;
