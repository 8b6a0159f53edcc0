import { column, type Row, row, type Sql } from '@routinely/db';
import { z } from 'zod';

/** A row of `tenants`: the tenant's registration policy. */
const tenantRow = row({
  id: column.uuid,
  /** invite | domain | open (contract "Joining a tenant"). */
  registration: column.text,
  allowedEmailDomains: column.json(z.array(z.string())),
  createdAt: column.timestamp,
  updatedAt: column.timestamp,
});
export type TenantRow = Row<typeof tenantRow>;

export async function findTenant(sql: Sql, tenantId: string): Promise<TenantRow | undefined> {
  return sql.first(
    tenantRow,
    `select id, registration, allowed_email_domains as "allowedEmailDomains", created_at as "createdAt",
     updated_at as "updatedAt" from tenants where id = ?`,
    [tenantId],
  );
}

export async function insertTenant(sql: Sql, row: TenantRow): Promise<void> {
  await sql.run(
    `insert into tenants (id, registration, allowed_email_domains, created_at, updated_at)
     values (?, ?, ?::jsonb, ?, ?)`,
    [row.id, row.registration, JSON.stringify(row.allowedEmailDomains), row.createdAt, row.updatedAt],
  );
}

export async function updateTenant(
  sql: Sql,
  row: Pick<TenantRow, 'id' | 'registration' | 'allowedEmailDomains' | 'updatedAt'>,
): Promise<void> {
  await sql.run('update tenants set registration = ?, allowed_email_domains = ?::jsonb, updated_at = ? where id = ?', [
    row.registration,
    JSON.stringify(row.allowedEmailDomains),
    row.updatedAt,
    row.id,
  ]);
}
