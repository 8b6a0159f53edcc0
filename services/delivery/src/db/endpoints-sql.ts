import type { Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';

/** Takes the owner's endpoint lock for the rest of the transaction and counts the owner's endpoints. */
export async function lockAndCountEndpoints(sql: Sql, owner: Owner): Promise<number> {
  await sql.advisoryLock(`delivery.endpoints:${owner.tenantId}/${owner.userId}`);
  const row = await sql.first<{ n: number }>(
    'select count(*)::int as n from webhook_endpoints where tenant_id = ? and user_id = ?',
    [owner.tenantId, owner.userId],
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

/** A secret sealed in the unbound `v0` form (Migration20261123150000), with the id it is to be bound to. */
export interface UnboundSecret {
  id: string;
  /** The endpoint id: the associated data of its sealed secret. */
  owner: string;
  secret_sealed: string;
}

/** Endpoints whose secret is still sealed in the unbound `v0` form. */
export function unboundEndpointSecrets(sql: Sql): Promise<UnboundSecret[]> {
  return sql.rows<UnboundSecret>(
    `select id, id as owner, secret_sealed from webhook_endpoints where secret_sealed like 'v0.%'`,
  );
}

/** Replaces an endpoint's sealed secret, unless it changed since it was read (`was`). */
export async function resealEndpointSecret(sql: Sql, id: string, sealed: string, was: string): Promise<void> {
  await sql.rows('update webhook_endpoints set secret_sealed = ? where id = ? and secret_sealed = ?', [
    sealed,
    id,
    was,
  ]);
}
