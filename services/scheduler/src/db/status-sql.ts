import type { Sql } from '@routinely/db';

/** When a tenant's last call of a provider was recorded in the usage ledger (only the time is read). */
export async function lastRecordedCall(sql: Sql, tenantId: string, provider: string): Promise<Date | null> {
  const row = await sql.first<{ at: Date }>(
    'select at from usage_ledger where tenant_id = ? and provider = ? order by at desc limit 1',
    [tenantId, provider],
  );
  return row ? new Date(row.at) : null;
}
