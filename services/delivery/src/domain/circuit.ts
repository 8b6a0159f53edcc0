import { v7 as uuidv7 } from 'uuid';
import type { EndpointFailureCount } from '../db/endpoints-sql.js';
import type { NewNotification } from '../db/notifications-sql.js';

export interface CircuitPolicy {
  /** WEBHOOK_CIRCUIT_THRESHOLD */
  threshold: number;
  /** WEBHOOK_CIRCUIT_OPEN_MS */
  openMs: number;
}

const MAX_OPEN_MS = 3_600_000;

/**
 * The circuit of an endpoint: at `threshold` consecutive failed tries it opens, and the endpoint's deliveries
 * pause for `openMs`; then one half-open probe goes out, and each failed probe doubles the pause (at most an
 * hour). A success closes it (SentRecorder). What `countEndpointFailure` applies in one statement.
 */
export function circuitLimits(policy: CircuitPolicy): CircuitPolicy & { maxOpenMs: number } {
  return { ...policy, maxOpenMs: MAX_OPEN_MS };
}

/** The owner's one bell notification when the circuit first opens (the failure that reached the threshold). */
export function circuitOpenedNotice(
  endpointId: string,
  endpoint: EndpointFailureCount,
  policy: CircuitPolicy,
  now: Date,
): NewNotification | null {
  if (endpoint.failures !== policy.threshold) return null;
  return {
    id: uuidv7(),
    tenant_id: endpoint.tenant_id,
    user_id: endpoint.user_id,
    kind: 'webhook.endpoint_failing',
    title: `Webhook endpoint "${endpoint.name}" is failing`,
    body: `Its last ${policy.threshold} deliveries failed; sending is paused and retried with a growing pause.`,
    data: { endpoint_id: endpointId, consecutive_failures: endpoint.failures },
    delivery_id: null,
    created_at: now,
  };
}
