import type { Sql } from '@routinely/db';
import { v7 as uuidv7 } from 'uuid';
import { countEndpointFailure } from '../db/endpoints-sql.js';
import { insertNotification } from '../db/notifications-sql.js';

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
  sql: Sql,
  endpointId: string,
  now: Date,
  policy: CircuitPolicy,
): Promise<void> {
  const endpoint = await countEndpointFailure(sql, endpointId, now, { ...policy, maxOpenMs: MAX_OPEN_MS });
  if (!endpoint || endpoint.failures !== policy.threshold) return;
  await insertNotification(sql, {
    id: uuidv7(),
    tenant_id: endpoint.tenant_id,
    user_id: endpoint.user_id,
    kind: 'webhook.endpoint_failing',
    title: `Webhook endpoint "${endpoint.name}" is failing`,
    body: `Its last ${policy.threshold} deliveries failed; sending is paused and retried with a growing pause.`,
    data: { endpoint_id: endpointId, consecutive_failures: endpoint.failures },
    delivery_id: null,
    created_at: now,
  });
}
