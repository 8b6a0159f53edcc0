import type { EntityManager, Sql } from '@routinely/db';
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

/** An endpoint's state after a failed try was counted. */
export interface EndpointFailureCount {
  failures: number;
  tenant_id: string;
  user_id: string;
  name: string;
}

/**
 * Counts a failed try of an endpoint in one statement; at `threshold` failures the circuit opens for
 * `openMs`, doubled per further failure and capped at `maxOpenMs`. Undefined when the endpoint is gone.
 */
export async function countEndpointFailure(
  sql: Sql,
  endpointId: string,
  now: Date,
  p: { threshold: number; openMs: number; maxOpenMs: number },
): Promise<EndpointFailureCount | undefined> {
  return sql.first<EndpointFailureCount>(
    `update webhook_endpoints set consecutive_failures = consecutive_failures + 1,
       circuit_open_until = case when consecutive_failures + 1 >= ?
         then ?::timestamptz + least(?::float8 * power(2, consecutive_failures + 1 - ?), ?::float8) * interval '1 millisecond'
         else circuit_open_until end
     where id = ?
     returning consecutive_failures as failures, tenant_id, user_id, name`,
    [p.threshold, now, p.openMs, p.threshold, p.maxOpenMs, endpointId],
  );
}
