import { type Orm, Sql } from '@routinely/db';

/** Active connections of one user: the dashboard's integrations_connected. */
export async function countConnected(orm: Orm, tenantId: string, userId: string): Promise<number> {
  const row = await Sql.pool(orm).first<{ n: number }>(
    "select count(*)::int as n from integrations where tenant_id = ? and user_id = ? and status = 'active'",
    [tenantId, userId],
  );
  return row?.n ?? 0;
}

/**
 * Connections of one tenant by status, their active push channels near expiry or already expired, and the ones
 * writing back whose last write-back attempt failed.
 */
export async function tenantIntegrationHealth(orm: Orm, tenantId: string, now: Date, renewBefore: Date) {
  const sql = Sql.pool(orm);
  const [byStatus, channels, writeBack] = await Promise.all([
    sql.rows<{ status: string; count: number }>(
      'select status, count(*)::int as count from integrations where tenant_id = ? group by status order by status',
      [tenantId],
    ),
    sql.first<{ near: number; expired: number }>(
      `select count(*) filter (where push_expires_at > ? and push_expires_at <= ?)::int as near,
              count(*) filter (where push_expires_at <= ?)::int as expired
       from integrations where tenant_id = ? and status = 'active' and push_expires_at is not null`,
      [now, renewBefore, now, tenantId],
    ),
    sql.first<{ failing: number }>(
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
