import { column, row, type Sql } from '@routinely/db';

const connectedRow = row({ n: column.integer });
const statusCountRow = row({ status: column.text, count: column.integer });
const channelExpiryRow = row({ near: column.integer, expired: column.integer });
const writeBackFailingRow = row({ failing: column.integer });

/** Active connections of one user: the dashboard's integrations_connected. */
export async function countConnected(sql: Sql, tenantId: string, userId: string): Promise<number> {
  const row = await sql.first(
    connectedRow,
    "select count(*)::int as n from integrations where tenant_id = ? and user_id = ? and status = 'active'",
    [tenantId, userId],
  );
  return row?.n ?? 0;
}

/**
 * Connections of one tenant by status, their active push channels near expiry or already expired, and the ones
 * writing back whose last write-back attempt failed.
 */
export async function tenantIntegrationHealth(sql: Sql, tenantId: string, now: Date, renewBefore: Date) {
  const [byStatus, channels, writeBack] = await Promise.all([
    sql.rows(
      statusCountRow,
      'select status, count(*)::int as count from integrations where tenant_id = ? group by status order by status',
      [tenantId],
    ),
    sql.first(
      channelExpiryRow,
      `select count(*) filter (where push_expires_at > ? and push_expires_at <= ?)::int as near,
              count(*) filter (where push_expires_at <= ?)::int as expired
       from integrations where tenant_id = ? and status = 'active' and push_expires_at is not null`,
      [now, renewBefore, now, tenantId],
    ),
    sql.first(
      writeBackFailingRow,
      `select count(*)::int as failing from integrations
       where tenant_id = ? and write_back_user is not null and write_back_last_error is not null`,
      [tenantId],
    ),
  ]);
  return {
    byStatus,
    nearExpiry: channels?.near ?? 0,
    expired: channels?.expired ?? 0,
    writeBackFailing: writeBack?.failing ?? 0,
  };
}
