import type { Sql } from '@routinely/db';
import type { Clock, Logger } from '@routinely/platform';
import { insertAttempt } from '../db/attempts-sql.js';
import type { ClaimedDelivery } from '../db/claim-sql.js';
import { recordTryOutcome } from '../db/deliveries-sql.js';
import type { EndpointForSend } from '../db/send-context-sql.js';
import type { CircuitPolicy } from '../domain/circuit.js';
import { type AttemptResult, type DeliveryStatus, tryOutcome } from '../domain/outcome.js';
import { countAttempt, failureClass } from './observability.js';
import { deadLetter, fallBackToEmail, recordEndpointFailure, writeNotification } from './outcome-writes.js';
import { SentRecorder } from './sent-recorder.js';

/**
 * Writes the outcome of each try, fenced by the delivery's lease token, with its attempts-log row in the same
 * transaction; dead deliveries get their DLQ row here. Successful webhooks are written in batches by the
 * `SentRecorder`, off the send path: the endpoint's next send does not wait for them (ADR 081).
 */
export class OutcomeRecorder {
  private readonly sent: SentRecorder;

  constructor(
    private readonly o: {
      db: Sql;
      clock: Clock;
      logger: Logger;
      circuit: CircuitPolicy;
      retryWaitsMs: readonly number[];
    },
  ) {
    this.sent = new SentRecorder(o.db);
  }

  /** `lastOfEndpoint`: written without lingering, since the next claim of the endpoint waits for it. */
  async record(
    delivery: ClaimedDelivery,
    result: AttemptResult,
    endpoint: EndpointForSend | undefined,
    latencyMs: number,
    lastOfEndpoint: boolean,
  ): Promise<void> {
    const now = this.o.clock.now();
    const tries = delivery.attempts + 1;
    const { status, delayMs: delay } = tryOutcome(result, tries, delivery.max_attempts, this.o.retryWaitsMs);
    if (result.ok && delivery.channel === 'webhook') {
      countAttempt(delivery.channel, 'sent');
      return this.sent.record(
        {
          id: delivery.id,
          leaseToken: delivery.lease_token,
          statusCode: result.statusCode,
          at: now,
          secretSealed: result.secretSealed,
          latencyMs,
        },
        lastOfEndpoint,
      );
    }
    const recorded = await this.o.db.transaction(async (sql) => {
      const written = await recordTryOutcome(sql, delivery.id, delivery.lease_token, {
        status,
        nextAttemptAt: delay === null ? null : new Date(now.getTime() + delay),
        statusCode: result.statusCode,
        error: result.ok ? null : result.error,
        at: now,
        deliveredAt: result.ok ? now : null,
        secretSealed: result.secretSealed,
      });
      if (!written) return false; // lease lost to another worker: its outcome wins
      await insertAttempt(sql, {
        tenant_id: delivery.tenant_id,
        user_id: delivery.user_id,
        delivery_id: delivery.id,
        endpoint_id: delivery.endpoint_id,
        event: delivery.event,
        event_id: delivery.event_id,
        attempt: tries,
        at: now,
        status_code: result.statusCode,
        error: result.ok ? null : result.error,
        latency_ms: latencyMs,
      });
      if (delivery.channel === 'inapp' && result.ok) await writeNotification(sql, delivery, now);
      if (result.ok) return true;
      // Only tries that reached for the receiver count against it (not a deleted or disabled endpoint).
      if (endpoint?.enabled) await recordEndpointFailure(sql, endpoint.id, now, this.o.circuit);
      if (status !== 'dead') return true;
      await deadLetter(sql, delivery, result, tries, now);
      if (endpoint?.fallback_to_email) await fallBackToEmail(sql, delivery, now);
      return true;
    });
    if (recorded) this.observe(delivery, result, status, tries, delay);
  }

  /** One metric sample per recorded try; one log line per failure and per dead letter (no URL, no secret). */
  private observe(
    d: ClaimedDelivery,
    result: AttemptResult,
    status: DeliveryStatus,
    tries: number,
    delay: number | null,
  ) {
    countAttempt(d.channel, status === 'sent' ? 'sent' : status === 'dead' ? 'dead' : 'retry');
    if (result.ok) return;
    const fields = {
      delivery_id: d.id,
      endpoint_id: d.endpoint_id,
      channel: d.channel,
      attempt: tries,
      status_code: result.statusCode,
      error_class: failureClass(result.error),
    };
    if (status === 'dead') this.o.logger.error(fields, 'delivery dead-lettered');
    else this.o.logger.warn({ ...fields, retry_in_ms: delay }, 'delivery attempt failed');
  }
}
