import type { Sql } from '@routinely/db';

/** A row of `tenants`: the tenant's registration policy. */
export interface TenantRow {
  id: string;
  /** invite | domain | open (contract "Joining a tenant"). */
  registration: string;
  allowedEmailDomains: string[];
  createdAt: Date;
  updatedAt: Date;
}

type RawTenant = Omit<TenantRow, 'createdAt' | 'updatedAt'> & { createdAt: string | Date; updatedAt: string | Date };

export async function findTenant(sql: Sql, tenantId: string): Promise<TenantRow | undefined> {
  const row = await sql.first<RawTenant>(
    `select id, registration, allowed_email_domains as "allowedEmailDomains", created_at as "createdAt",
     updated_at as "updatedAt" from tenants where id = ?`,
    [tenantId],
  );
  // The driver hands timestamptz over as text; rows here carry Dates.
  return row && { ...row, createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt) };
}

export async function insertTenant(sql: Sql, row: TenantRow): Promise<void> {
  await sql.rows(
    `insert into tenants (id, registration, allowed_email_domains, created_at, updated_at)
     values (?, ?, ?::jsonb, ?, ?)`,
    [row.id, row.registration, JSON.stringify(row.allowedEmailDomains), row.createdAt, row.updatedAt],
  );
}

export async function updateTenant(
  sql: Sql,
  row: Pick<TenantRow, 'id' | 'registration' | 'allowedEmailDomains' | 'updatedAt'>,
): Promise<void> {
  await sql.rows('update tenants set registration = ?, allowed_email_domains = ?::jsonb, updated_at = ? where id = ?', [
    row.registration,
    JSON.stringify(row.allowedEmailDomains),
    row.updatedAt,
    row.id,
  ]);
}
