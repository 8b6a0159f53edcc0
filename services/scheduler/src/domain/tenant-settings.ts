import type { Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { findTenantSettings, upsertTenantSettings } from '../db/settings-sql.js';
import { iso } from './answer-values.js';
import type { SchedulerContext } from './context.js';
import type { ProviderName } from './providers.js';

export interface TenantPolicy {
  tenant_id: string;
  llm_provider_tenant_default: ProviderName;
  llm_provider_locked: boolean;
  updated_at: string | null;
  updated_by: string | null;
}

/** The tenant's provider policy; a tenant nobody configured has the contract's defaults (builtin, unlocked). */
export async function tenantPolicy(sql: Sql, tenantId: string): Promise<TenantPolicy> {
  const row = await findTenantSettings(sql, tenantId);
  return {
    tenant_id: tenantId,
    llm_provider_tenant_default: (row?.llm_provider_tenant_default ?? 'builtin') as ProviderName,
    llm_provider_locked: row?.llm_provider_locked ?? false,
    updated_at: row?.updated_at ? iso(row.updated_at) : null,
    updated_by: row?.updated_by ?? null,
  };
}

/**
 * The provider a run uses (contract): the tenant default while locked; else the request's, else the user's
 * default, else the tenant default.
 */
export function effectiveProvider(
  policy: TenantPolicy,
  requested: ProviderName | undefined,
  userDefault: ProviderName | undefined,
): ProviderName {
  if (policy.llm_provider_locked) return policy.llm_provider_tenant_default;
  return requested ?? userDefault ?? policy.llm_provider_tenant_default;
}

export class TenantSettingsService {
  constructor(private readonly ctx: SchedulerContext) {}

  get(owner: Owner): Promise<TenantPolicy> {
    return tenantPolicy(this.ctx.db, owner.tenantId);
  }

  async patch(
    owner: Owner,
    patch: { llm_provider_tenant_default?: ProviderName | undefined; llm_provider_locked?: boolean | undefined },
  ): Promise<TenantPolicy> {
    const sql = this.ctx.db;
    await upsertTenantSettings(
      sql,
      owner.tenantId,
      {
        ...(patch.llm_provider_tenant_default ? { tenantDefault: patch.llm_provider_tenant_default } : {}),
        ...(patch.llm_provider_locked !== undefined ? { locked: patch.llm_provider_locked } : {}),
      },
      owner.userId,
      this.ctx.clock.now(),
    );
    return tenantPolicy(sql, owner.tenantId);
  }
}
