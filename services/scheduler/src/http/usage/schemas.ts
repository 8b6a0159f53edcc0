import { dateOut, nameSchemas } from '@routinely/platform';
import { z } from 'zod';
import { PROVIDER_NAMES } from '../../domain/providers.js';

const usd = z.number().describe('USD, rounded to 6 decimals');

export const costStatus = z.object({
  date: dateOut(),
  daily_usd: usd,
  soft: usd,
  hard: usd,
  allowed: z.boolean(),
  breached: z.enum(['none', 'soft', 'hard']),
});

export const quotaMe = z.object({
  soft_cap_usd: usd,
  hard_cap_usd: usd,
  daily_usd: usd,
  soft_breached: z.boolean(),
  hard_breached: z.boolean(),
  allowed: z.boolean(),
  bulk_import: z.object({
    per_hour: z.number().int(),
    per_day: z.number().int(),
    used_hour: z.number().int(),
    used_day: z.number().int(),
  }),
});

const counts = { calls: z.number().int(), input_tokens: z.number().int(), output_tokens: z.number().int() };

export const usageToday = z.object({
  date: dateOut(),
  timezone: z.string(),
  total_usd: usd,
  ...counts,
  providers: z.array(z.object({ provider: z.string(), model: z.string(), ...counts, cost_usd: usd })),
});

export const monthQuery = z.object({
  month: z
    .string()
    // Year 0000 does not exist in PostgreSQL's calendar (1 BC): the first month there is 0001-01.
    .regex(/^(?!0000)\d{4}-(0[1-9]|1[0-2])$/, 'month must be YYYY-MM, from 0001-01 to 9999-12')
    .optional(),
});

export const usageMonthly = z.object({
  month: z.string(),
  total_usd: usd,
  days: z.array(z.object({ date: dateOut(), ...counts, cost_usd: usd })),
});

export const providerList = z.array(
  z.object({ name: z.enum(PROVIDER_NAMES), model: z.string(), available: z.boolean() }),
);

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  ScheduleCost: costStatus,
  Quota: quotaMe,
  UsageToday: usageToday,
  UsageMonthly: usageMonthly,
});
