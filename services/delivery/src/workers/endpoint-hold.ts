import type { ClaimedDelivery } from '../db/claim-sql.js';
import { EndpointGate } from '../domain/endpoint-gate.js';
import type { SendContext } from './send-context.js';

/**
 * One endpoint a worker holds (its webhook claim leased the endpoint's due rows, so no other worker sends to
 * it): the gate, the lane places it takes, the deliveries not yet settled, and what topping up needs.
 */
export class EndpointHold {
  readonly gate: EndpointGate<ClaimedDelivery>;
  /** Webhook lane places taken: `min(sendsPerEndpoint, rows)` at the claim; a top-up never adds places. */
  places = 0;
  /** Deliveries not yet settled, plus one while a top-up is under way (the hold is not over before it ends). */
  left = 0;
  /** Lease tokens of the claims that filled this hold: a top-up does not mistake these leases for another holder's. */
  readonly tokens = new Set<string>();
  toppingUp = false;
  /** The last top-up found nothing due: the next is tried after new work is announced (a pacer pass). */
  exhausted = false;

  constructor(
    readonly endpointId: string,
    readonly sendsPerEndpoint: number,
    readonly send: SendContext,
  ) {
    this.gate = new EndpointGate(sendsPerEndpoint);
  }

  /** A hold of fewer rows than its sends (a half-open probe, a trickle) is not topped up; it ends and is claimed anew. */
  get mayTopUp(): boolean {
    return this.places === this.sendsPerEndpoint && !this.toppingUp && !this.exhausted && !this.gate.isClosed;
  }
}

/** Groups a webhook claim by endpoint: each gets a hold and takes as many lane places as it may send at once. */
export function holdEndpoints(
  claimed: readonly ClaimedDelivery[],
  sendsPerEndpoint: number,
  send: SendContext,
): Map<string, EndpointHold> {
  const holds = new Map<string, EndpointHold>();
  for (const d of claimed) {
    if (!d.endpoint_id) continue;
    const hold = holds.get(d.endpoint_id) ?? new EndpointHold(d.endpoint_id, sendsPerEndpoint, send);
    hold.left++;
    hold.tokens.add(d.lease_token);
    holds.set(d.endpoint_id, hold);
  }
  for (const hold of holds.values()) hold.places = Math.min(sendsPerEndpoint, hold.left);
  return holds;
}
