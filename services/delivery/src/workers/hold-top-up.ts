import type { Sql } from '@routinely/db';
import type { Clock, Logger } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import { type ClaimedDelivery, releaseLeases, topUpEndpoint } from '../db/claim-sql.js';
import type { CircuitPolicy } from '../domain/circuit.js';
import type { EndpointHold } from './endpoint-hold.js';

/**
 * Lease tokens a hold remembers: the newest top-ups' rows are the last in its queue, so they are the live ones; a
 * live lease under a token forgotten only makes a top-up see the endpoint as held elsewhere and skip (safe).
 */
const HELD_TOKENS_KEPT = 8;

export interface TopUpOptions {
  db: Sql;
  clock: Clock;
  logger: Logger;
  leaseMs: number;
  batchSize: number;
  perEndpoint: number;
  perUser: number;
  circuit: CircuitPolicy;
}

/**
 * Leases the endpoint's newly due rows to the hold (see `topUpEndpoint`) and answers them, in due order, for the
 * caller to queue at the hold's gate; none when nothing is due (the hold is then `exhausted` until the next
 * pass announces new work), when the top-up failed (the hold drains and its endpoint is claimed afresh), or
 * when a failed try closed the gate meanwhile (the rows are given back to the claim, which applies the circuit).
 */
export async function topUpHold(o: TopUpOptions, hold: EndpointHold, signal: AbortSignal): Promise<ClaimedDelivery[]> {
  const now = o.clock.now();
  const leaseToken = uuidv7();
  try {
    const request = {
      endpointId: hold.endpointId,
      heldTokens: [...hold.tokens].slice(-HELD_TOKENS_KEPT),
      now,
      leaseUntil: new Date(now.getTime() + o.leaseMs),
      leaseToken,
      limit: o.batchSize,
      perEndpoint: o.perEndpoint,
      perUser: o.perUser,
      circuitThreshold: o.circuit.threshold,
    };
    const { rows, endpoint } = await o.db.transaction((sql) => topUpEndpoint(sql, request));
    if (rows.length === 0) {
      hold.exhausted = true;
      return [];
    }
    if (signal.aborted) return []; // killed: the leases expire like a dead process's
    if (hold.gate.isClosed) {
      await releaseLeases(
        o.db,
        rows.map((d) => d.id),
        leaseToken,
      );
      return [];
    }
    if (endpoint) hold.send.refresh(endpoint);
    else hold.send.endpoints.delete(hold.endpointId); // deleted meanwhile: its rows fail as 'endpoint deleted'
    hold.tokens.add(leaseToken);
    return rows;
  } catch (error) {
    hold.exhausted = true;
    o.logger.warn({ err: error, endpoint_id: hold.endpointId }, 'could not top up a held endpoint');
    return [];
  }
}
