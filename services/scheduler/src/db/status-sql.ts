import type { Sql } from '@routinely/db';

/** When a provider's last call was recorded in the usage ledger (any tenant; only the time is read). */
export async function lastRecordedCall(sql: Sql, provider: string): Promise<Date | null> {
  const row = await sql.first<{ at: Date }>('select at from usage_ledger where provider = ? order by at desc limit 1', [
    provider,
  ]);
  return row ? new Date(row.at) : null;
}
