import { nameSchemas, timestampOut, uuidOut } from '@routinely/platform';
import { z } from 'zod';
import { providerName } from '../../domain/providers.js';

export const userIdParams = z.object({ user_id: z.uuid() });
const usd = z.number();

export const quotaRow = z.object({
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
export const quotaPatch = z
  .object({
    soft_cap_usd: cap.optional(),
    hard_cap_usd: cap.optional(),
    bulk_import_per_hour: importLimit.optional(),
    bulk_import_per_day: importLimit.optional(),
  })
  .strict();

export const tenantSettings = z.object({
  tenant_id: uuidOut(),
  llm_provider_tenant_default: providerName,
  llm_provider_locked: z.boolean(),
  updated_at: timestampOut().nullable(),
  updated_by: uuidOut().nullable(),
});

export const tenantPatch = z
  .object({ llm_provider_tenant_default: providerName.optional(), llm_provider_locked: z.boolean().optional() })
  .strict();

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  UserQuota: quotaRow,
  UserQuotaPatch: quotaPatch,
  TenantSchedulingSettings: tenantSettings,
});
