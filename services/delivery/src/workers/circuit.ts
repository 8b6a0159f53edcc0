import type { Knex } from '@mikro-orm/knex';
import { v7 as uuidv7 } from 'uuid';

export interface CircuitPolicy {
  /** WEBHOOK_CIRCUIT_THRESHOLD */
  threshold: number;
  /** WEBHOOK_CIRCUIT_OPEN_MS */
  openMs: number;
}

const MAX_OPEN_MS = 3_600_000;

/**
 * Counts a failed try of an endpoint. At the threshold the circuit opens: the endpoint's deliveries pause for
 * `openMs`, then one half-open probe goes out; each failed probe doubles the pause (at most an hour). A success
 * closes it (SentRecorder). The owner gets one bell notification when it first opens.
 */
export async function recordEndpointFailure(
  trx: Knex.Transaction,
  endpointId: string,
  now: Date,
  policy: CircuitPolicy,
): Promise<void> {
  const { rows } = await trx.raw<{ rows: { failures: number; tenant_id: string; user_id: string; name: string }[] }>(
    `update webhook_endpoints set consecutive_failures = consecutive_failures + 1,
       circuit_open_until = case when consecutive_failures + 1 >= ?
         then ?::timestamptz + least(?::float8 * power(2, consecutive_failures + 1 - ?), ?::float8) * interval '1 millisecond'
         else circuit_open_until end
     where id = ?
     returning consecutive_failures as failures, tenant_id, user_id, name`,
    [policy.threshold, now, policy.openMs, policy.threshold, MAX_OPEN_MS, endpointId],
  );
  const endpoint = rows[0];
  if (!endpoint || endpoint.failures !== policy.threshold) return;
  await trx('notifications').insert({
    id: uuidv7(),
    tenant_id: endpoint.tenant_id,
    user_id: endpoint.user_id,
    kind: 'webhook.endpoint_failing',
    title: `Webhook endpoint "${endpoint.name}" is failing`,
    body: `Its last ${policy.threshold} deliveries failed; sending is paused and retried with a growing pause.`,
    data: JSON.stringify({ endpoint_id: endpointId, consecutive_failures: endpoint.failures }),
    delivery_id: null,
    read_at: null,
    created_at: now,
  });
}
