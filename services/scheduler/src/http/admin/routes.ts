import { nameSchemas, ownerOf, pageOf, pageQuery, timestampOut, uuidOut } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AdminQuotaService } from '../../domain/admin-quotas.js';
import { providerName } from '../../domain/providers.js';
import type { TenantSettingsService } from '../../domain/tenant-settings.js';

const tags = ['admin'];
const userIdParams = z.object({ user_id: z.uuid() });
const usd = z.number();

const quotaRow = z.object({
  user_id: z.uuid(),
  email: z.string(),
  soft_cap_usd: usd,
  hard_cap_usd: usd,
  bulk_import_per_hour: z.number().int(),
  bulk_import_per_day: z.number().int(),
  daily_usd: usd,
  soft_breached: z.boolean(),
  hard_breached: z.boolean(),
  updated_at: timestampOut().nullable(),
});

const cap = z.number().min(0).max(1_000_000);
const importLimit = z.number().int().min(0).max(10_000);
const quotaPatch = z
  .object({
    soft_cap_usd: cap.optional(),
    hard_cap_usd: cap.optional(),
    bulk_import_per_hour: importLimit.optional(),
    bulk_import_per_day: importLimit.optional(),
  })
  .strict();

const tenantSettings = z.object({
  tenant_id: uuidOut(),
  llm_provider_tenant_default: providerName,
  llm_provider_locked: z.boolean(),
  updated_at: timestampOut().nullable(),
  updated_by: uuidOut().nullable(),
});

const tenantPatch = z
  .object({ llm_provider_tenant_default: providerName.optional(), llm_provider_locked: z.boolean().optional() })
  .strict();

/** The tenant administrator's quotas and provider policy; every read and write stays inside the admin's tenant. */
export function adminRoutes(quotas: AdminQuotaService, tenant: TenantSettingsService): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.get(
      '/service/admin/quotas',
      {
        config: { permission: 'SERVICE_ADMIN' },
        schema: {
          operationId: 'listUserQuotas',
          tags,
          summary: 'Quota rows of every user of the tenant, paged (limit at most 500)',
          querystring: pageQuery,
          response: { 200: pageOf(quotaRow) },
        },
      },
      async (request) => quotas.list(ownerOf(request), request.query),
    );

    r.get(
      '/service/admin/quotas/:user_id',
      {
        config: { permission: 'SERVICE_ADMIN' },
        schema: {
          operationId: 'getUserQuota',
          tags,
          summary: "One user's quota row",
          params: userIdParams,
          response: { 200: quotaRow },
        },
      },
      async (request) => quotas.get(ownerOf(request), request.params.user_id),
    );

    r.patch(
      '/service/admin/quotas/:user_id',
      {
        config: { permission: 'SERVICE_QUOTA_OVERRIDE' },
        schema: {
          operationId: 'updateUserQuota',
          description:
            "Caps are >= 0 and import limits 0..10000; a result with the soft cap above the hard cap is 422 naming `soft_cap_usd`. New import limits hold for the user's next import at once.",
          tags,
          summary: 'Raise or lower caps and import limits (422 naming soft_cap_usd when soft would be above hard)',
          params: userIdParams,
          body: quotaPatch,
          response: { 200: quotaRow },
        },
      },
      async (request) => quotas.patch(ownerOf(request), request.params.user_id, request.body),
    );

    r.get(
      '/service/admin/tenant/settings',
      {
        config: { permission: 'SERVICE_ADMIN' },
        schema: {
          operationId: 'getTenantSchedulingSettings',
          tags,
          summary: "The tenant's provider policy",
          response: { 200: tenantSettings },
        },
      },
      async (request) => tenant.get(ownerOf(request)),
    );

    r.patch(
      '/service/admin/tenant/settings',
      {
        config: { permission: 'SERVICE_ADMIN' },
        schema: {
          operationId: 'updateTenantSchedulingSettings',
          tags,
          summary: 'Set the tenant default provider and whether it is locked for every user',
          body: tenantPatch,
          response: { 200: tenantSettings },
        },
      },
      async (request) => tenant.patch(ownerOf(request), request.body),
    );
  };
}

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  UserQuota: quotaRow,
  UserQuotaPatch: quotaPatch,
  TenantSchedulingSettings: tenantSettings,
});
