import { ownerOf, pageOf, pageQuery } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AdminQuotaService } from '../../domain/admin-quotas.js';
import type { TenantSettingsService } from '../../domain/tenant-settings.js';
import { quotaPatch, quotaRow, tenantPatch, tenantSettings, userIdParams } from './schemas.js';

const tags = ['admin'];

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
