import { defineEntity, p } from '@routinely/db';

/** A tenant's registration policy; the row is written when the tenant's first user creates it. */
const Tenant = defineEntity({
  name: 'Tenant',
  tableName: 'tenants',
  properties: {
    id: p.uuid().primary(),
    /** invite | domain | open (contract "Joining a tenant"). */
    registration: p.string().length(10),
    allowedEmailDomains: p.json<string[]>().fieldName('allowed_email_domains'),
    createdAt: p.datetime().fieldName('created_at'),
    updatedAt: p.datetime().fieldName('updated_at'),
  },
});

/** A single-use invitation to a tenant; only the token's sha256 is stored. */
const TenantInvite = defineEntity({
  name: 'TenantInvite',
  tableName: 'tenant_invites',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.uuid().fieldName('tenant_id').index('tenant_invites_tenant_idx'),
    tokenHash: p.string().length(64).fieldName('token_hash').unique('tenant_invites_hash_key'),
    /** When set, only this (lower-cased) email may use the invitation. */
    email: p.string().length(320).nullable(),
    role: p.string().length(10),
    createdBy: p.uuid().fieldName('created_by'),
    createdAt: p.datetime().fieldName('created_at'),
    expiresAt: p.datetime().fieldName('expires_at'),
    usedAt: p.datetime().nullable().fieldName('used_at'),
    usedBy: p.uuid().nullable().fieldName('used_by'),
    revokedAt: p.datetime().nullable().fieldName('revoked_at'),
  },
});

export const tenantEntities = [Tenant, TenantInvite];
