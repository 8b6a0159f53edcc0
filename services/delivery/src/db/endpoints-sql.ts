import type { EntityManager } from '@routinely/db';
import type { Owner } from '@routinely/platform';

/** Takes the owner's endpoint lock for the rest of the transaction and counts the owner's endpoints. */
export async function lockAndCountEndpoints(em: EntityManager, owner: Owner): Promise<number> {
  const connection = em.getConnection();
  const tx = em.getTransactionContext();
  await connection.execute(
    "select pg_advisory_xact_lock(hashtextextended('delivery.endpoints:' || ? || '/' || ?, 0))",
    [owner.tenantId, owner.userId],
    'all',
    tx,
  );
  const [row] = await connection.execute<{ n: number }[]>(
    'select count(*)::int as n from webhook_endpoints where tenant_id = ? and user_id = ?',
    [owner.tenantId, owner.userId],
    'all',
    tx,
  );
  return row?.n ?? 0;
}
