import type { ProviderRegistry } from '@routinely/llm';
import { ownerOf } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { UsageService } from '../../domain/usage.js';
import { costStatus, monthQuery, providerList, quotaMe, usageMonthly, usageToday } from './schemas.js';

const permission = 'SERVICE_SCHEDULE_RUN';

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
