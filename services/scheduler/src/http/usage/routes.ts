import type { ProviderRegistry } from '@routinely/llm';
import { dateOut, nameSchemas, ownerOf } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PROVIDER_NAMES } from '../../domain/providers.js';
import type { UsageService } from '../../domain/usage.js';

const permission = 'SERVICE_SCHEDULE_RUN';
const usd = z.number().describe('USD, rounded to 6 decimals');

const costStatus = z.object({
  date: dateOut(),
  daily_usd: usd,
  soft: usd,
  hard: usd,
  allowed: z.boolean(),
  breached: z.enum(['none', 'soft', 'hard']),
});

const quotaMe = z.object({
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

const usageToday = z.object({
  date: dateOut(),
  timezone: z.string(),
  total_usd: usd,
  ...counts,
  providers: z.array(z.object({ provider: z.string(), model: z.string(), ...counts, cost_usd: usd })),
});

const monthQuery = z.object({
  month: z
    .string()
    // Year 0000 does not exist in PostgreSQL's calendar (1 BC): the first month there is 0001-01.
    .regex(/^(?!0000)\d{4}-(0[1-9]|1[0-2])$/, 'month must be YYYY-MM, from 0001-01 to 9999-12')
    .optional(),
});

const usageMonthly = z.object({
  month: z.string(),
  total_usd: usd,
  days: z.array(z.object({ date: dateOut(), ...counts, cost_usd: usd })),
});

const providerList = z.array(z.object({ name: z.enum(PROVIDER_NAMES), model: z.string(), available: z.boolean() }));

/** Spend, quota and provider reads of the caller ("today" is the day in the caller's settings timezone). */
export function usageRoutes(usage: UsageService, providers: ProviderRegistry): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get(
      '/service/schedule/cost/me',
      {
        config: { permission },
        schema: {
          operationId: 'getMyScheduleCost',
          tags: ['scheduling'],
          summary: "Today's model spend and quota status",
          response: { 200: costStatus },
        },
      },
      async (request) => usage.costStatus(ownerOf(request)),
    );

    r.get(
      '/service/quota/me',
      {
        config: { permission },
        schema: {
          operationId: 'getMyQuota',
          tags: ['usage'],
          summary: 'Spend caps, breach flags and bulk-import limits of the caller',
          response: { 200: quotaMe },
        },
      },
      async (request) => usage.quotaMe(ownerOf(request)),
    );

    r.get(
      '/service/llm/usage/today',
      {
        config: { permission },
        schema: {
          operationId: 'getTodayUsage',
          tags: ['usage'],
          summary: "Today's cost and tokens per provider",
          response: { 200: usageToday },
        },
      },
      async (request) => usage.today(ownerOf(request)),
    );

    r.get(
      '/service/llm/usage/monthly',
      {
        config: { permission },
        schema: {
          operationId: 'getMonthlyUsage',
          tags: ['usage'],
          summary: 'Every day of a month (default: this month in the caller timezone)',
          querystring: monthQuery,
          response: { 200: usageMonthly },
        },
      },
      async (request) => usage.monthly(ownerOf(request), request.query.month),
    );

    r.get(
      '/service/llm/providers',
      {
        config: { permission },
        schema: {
          operationId: 'listModelProviders',
          tags: ['usage'],
          summary: 'Configured providers, their model and availability',
          response: { 200: providerList },
        },
      },
      async () => providers.list(),
    );
  };
}

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  ScheduleCost: costStatus,
  Quota: quotaMe,
  UsageToday: usageToday,
  UsageMonthly: usageMonthly,
});
