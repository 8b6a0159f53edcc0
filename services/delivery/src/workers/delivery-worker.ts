import type { Orm } from '@routinely/db';
import type { Clock, Logger, PassResult, SecretBox } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import { insertAttempt } from '../db/attempts-sql.js';
import { claimFast, claimWebhooks, type Lane, nextDeliveryDue, releaseLeases } from '../db/claim-sql.js';
import { contactEmailsOf, endpointsForSend } from '../db/send-context-sql.js';
import { nextRetryDelayMs } from '../domain/retry-policy.js';
import type { WebhookSender } from '../domain/webhook-sender.js';
import type { Mailer } from '../email/mailer.js';
import { type AttemptResult, attemptDelivery, type ClaimedDelivery, type EndpointForSend, unsent } from './attempt.js';
import { type CircuitPolicy, recordEndpointFailure } from './circuit.js';
import { type EndpointGate, type EndpointHold, holdEndpoints, settleWaker } from './endpoint-gate.js';
import { countAttempt, failureClass } from './observability.js';
import { deadLetter, fallBackToEmail, writeNotification } from './outcome-writes.js';
import { SentRecorder } from './sent-recorder.js';

type DeliveryStatus = 'sent' | 'failed' | 'dead';

export interface DeliveryWorkerOptions {
  orm: Orm;
  clock: Clock;
  logger: Logger;
  box: SecretBox;
  sender: WebhookSender;
  mailer: Mailer;
  leaseMs: number;
  batchSize: number;
  /** Sends in flight per lane (fast: in-app and email; webhook). */
  concurrency: number;
  /** WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT */
  perEndpoint: number;
  /** WEBHOOK_MAX_IN_FLIGHT_PER_USER */
  perUser: number;
  circuit: CircuitPolicy;
  /** WEBHOOK_TIMEOUT_MS: a queued send starts only while its lease outlasts it. */
  sendTimeoutMs: number;
  /** Called when a started delivery is recorded: a place in its lane (and at its endpoint) is free again. */
  onSettled?: () => void;
}

/**
 * Sends due deliveries. A pass claims rows (FOR UPDATE SKIP LOCKED, then a lease with a fencing token
 * written in the same statement), sends outside any transaction, and records each outcome only if it
 * still holds the lease. A worker that dies mid-send leaves the row leased; when the lease expires another
 * worker retries the same attempt of the same delivery id.
 */
export class DeliveryWorker {
  private abort = new AbortController();
  private readonly sent: SentRecorder;

  constructor(private readonly o: DeliveryWorkerOptions) {
    this.sent = new SentRecorder(o.orm);
  }

  /** Claimed deliveries not yet recorded (or given back), per lane: what a lane's capacity counts. */
  private readonly inFlight: Record<Lane, Set<Promise<boolean>>> = { fast: new Set(), webhook: new Set() };
  /** Webhook lane places taken: the sends the held endpoints may have in flight (ADR 081). */
  private webhookPlaces = 0;

  /** Claims what each lane has room for and waits until all of it is recorded; returns how many it tried. */
  async runDue(): Promise<number> {
    const started = await this.startDue();
    const tried = await Promise.all(started.map((s) => s.done));
    return tried.filter(Boolean).length;
  }

  /**
   * Claims and starts what each lane has room for without waiting for the sends: a pass never waits on a
   * hanging receiver, and a lane's free place is refilled as soon as a send is recorded (`onSettled`). The
   * fast lane's places are claimed rows; the webhook lane's are sends: a claimed endpoint takes as many places
   * as it may have sends in flight, however many of its deliveries wait behind its gate (ADR 081).
   */
  private async startDue(): Promise<{ lane: Lane; full: boolean; done: Promise<boolean> }[]> {
    const started: { lane: Lane; full: boolean; done: Promise<boolean> }[] = [];
    const sendsPerEndpoint = Math.min(this.o.perEndpoint, this.o.perUser);
    for (const lane of ['fast', 'webhook'] as const) {
      const free = this.o.concurrency - (lane === 'fast' ? this.inFlight.fast.size : this.webhookPlaces);
      if (free <= 0) continue;
      const maxEndpoints = Math.max(1, Math.floor(free / sendsPerEndpoint));
      const limit = lane === 'fast' ? Math.min(this.o.batchSize, free) : this.o.batchSize;
      const claimed = await this.claim(lane, limit, maxEndpoints);
      if (claimed.length === 0) continue;
      const knex = this.o.orm.em.getKnex();
      const endpoints = await endpointsForSend(knex, claimed);
      const emails = await contactEmailsOf(knex, claimed);
      const groups = lane === 'webhook' ? holdEndpoints(claimed, sendsPerEndpoint) : new Map<string, EndpointHold>();
      for (const group of groups.values()) this.webhookPlaces += group.places;
      const filledLane = lane === 'fast' ? claimed.length === free : groups.size >= maxEndpoints;
      const wake = settleWaker(claimed.length, filledLane, () => this.o.onSettled?.());
      for (const delivery of claimed) {
        const group = delivery.endpoint_id ? groups.get(delivery.endpoint_id) : undefined;
        const done: Promise<boolean> = this.process(delivery, endpoints, emails, group?.gate ?? null).finally(() => {
          this.inFlight[lane].delete(done);
          const endpointDone = group ? --group.left === 0 : lane === 'webhook';
          if (endpointDone) this.webhookPlaces -= group?.places ?? 1;
          wake(lane === 'fast' || endpointDone);
        });
        if (lane === 'webhook' && !group) this.webhookPlaces += 1; // a webhook row without an endpoint id
        this.inFlight[lane].add(done);
        started.push({ lane, full: claimed.length === this.o.batchSize, done });
      }
    }
    return started;
  }

  /** One claimed delivery: waits for its endpoint's gate, tries it, records it; false when it was not tried. */
  private async process(
    delivery: ClaimedDelivery,
    endpoints: Map<string, EndpointForSend>,
    emails: Map<string, string>,
    gate: EndpointGate | null,
  ): Promise<boolean> {
    const signal = this.abort.signal;
    if (gate && !(await this.mayStart(delivery, gate))) return false;
    let result: AttemptResult;
    // Wall time of the try for the attempts log (a duration, not a domain time: the injected clock stays out).
    const started = performance.now();
    try {
      const nowSeconds = Math.floor(this.o.clock.now().getTime() / 1000);
      result = await attemptDelivery(delivery, { ...this.o, endpoints, emails, nowSeconds, signal });
    } catch (error) {
      result = unsent((error as Error).message, true);
    }
    if (signal.aborted) {
      gate?.close(); // killed: leave the leases to expire, the attempts are retried elsewhere
      return true;
    }
    // The endpoint's next send starts now, while this outcome is written. Only a failure of the receiver
    // itself (not a deleted or disabled endpoint) stops the rest.
    const endpoint = delivery.endpoint_id ? endpoints.get(delivery.endpoint_id) : undefined;
    gate?.release(result.ok || !endpoint?.enabled);
    const latencyMs = Math.round(performance.now() - started);
    await this.record(delivery, result, endpoints, latencyMs, gate?.idle ?? false).catch((error) =>
      this.o.logger.error({ err: error, delivery: delivery.id }, 'could not record delivery outcome'),
    );
    return true;
  }

  /**
   * Waits for a place at the endpoint. A send starts only while its lease outlasts the send's timeout, so no
   * other worker can claim it mid-send; a delivery that may not start is given back at once (its lease
   * released), unless the worker was killed, which leaves its leases to expire like a dead process.
   */
  private async mayStart(delivery: ClaimedDelivery, gate: EndpointGate): Promise<boolean> {
    const open = await gate.acquire();
    if (this.abort.signal.aborted) {
      if (open) gate.close();
      return false;
    }
    const leaseLeftMs = new Date(delivery.lease_until).getTime() - this.o.clock.now().getTime();
    if (open && leaseLeftMs > this.o.sendTimeoutMs) return true;
    if (open) gate.release(false); // the rest of the claim has the same lease: give it all back
    await releaseLeases(this.o.orm.em.getKnex(), [delivery.id], delivery.lease_token).catch((error) =>
      this.o.logger.warn({ err: error, delivery: delivery.id }, 'could not give a lease back; it will expire'),
    );
    return false;
  }

  private async claim(lane: Lane, limit: number, maxEndpoints: number): Promise<ClaimedDelivery[]> {
    const now = this.o.clock.now();
    const request = {
      now,
      leaseUntil: new Date(now.getTime() + this.o.leaseMs),
      leaseToken: uuidv7(),
      limit,
      perEndpoint: this.o.perEndpoint,
      perUser: this.o.perUser,
      circuitThreshold: this.o.circuit.threshold,
      maxEndpoints,
    };
    const knex = this.o.orm.em.getKnex();
    return lane === 'fast' ? claimFast(knex, request) : claimWebhooks(knex, request);
  }

  /**
   * Lets started deliveries finish for up to `graceMs` (a stopping host), then abandons the rest as a killed
   * process would: their leases expire and another worker retries the same attempt.
   */
  async drain(graceMs: number): Promise<void> {
    const all = Promise.all([...this.inFlight.fast, ...this.inFlight.webhook]);
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([all, grace]);
    clearTimeout(timer);
    this.kill();
    await all;
    this.revive();
  }

  /**
   * Writes the outcome of one try, fenced by the lease token, with its attempts-log row in the same
   * transaction; dead deliveries get their DLQ row here.
   */
  private async record(
    delivery: ClaimedDelivery,
    result: AttemptResult,
    endpoints: Map<string, EndpointForSend>,
    latencyMs: number,
    lastOfEndpoint: boolean,
  ) {
    const now = this.o.clock.now();
    const tries = delivery.attempts + 1;
    const delay = result.ok || !result.retryable ? null : nextRetryDelayMs(tries, delivery.max_attempts);
    const status: DeliveryStatus = result.ok ? 'sent' : delay !== null ? 'failed' : 'dead';
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
    const recorded = await this.o.orm.em.getKnex().transaction(async (trx) => {
      const { rows } = await trx.raw<{ rows: { id: string }[] }>(
        `update deliveries set status = ?, attempts = attempts + 1, next_attempt_at = ?, lease_until = null,
           lease_token = null, last_status_code = ?, last_error = ?, last_attempt_at = ?, delivered_at = ?,
           secret_sealed = coalesce(secret_sealed, ?), updated_at = ?
         where id = ? and lease_token = ? returning id`,
        [
          status,
          delay === null ? null : new Date(now.getTime() + delay),
          result.statusCode,
          result.ok ? null : result.error,
          now,
          result.ok ? now : null,
          result.secretSealed,
          now,
          delivery.id,
          delivery.lease_token,
        ],
      );
      if (rows.length === 0) return false; // lease lost to another worker: its outcome wins
      await insertAttempt(trx, {
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
      if (delivery.channel === 'inapp' && result.ok) await writeNotification(trx, delivery, now);
      if (result.ok) return true;
      const endpoint = delivery.endpoint_id ? endpoints.get(delivery.endpoint_id) : undefined;
      // Only tries that reached for the receiver count against it (not a deleted or disabled endpoint).
      if (endpoint?.enabled) await recordEndpointFailure(trx, endpoint.id, now, this.o.circuit);
      if (status !== 'dead') return true;
      await deadLetter(trx, delivery, result, tries, now);
      if (endpoint?.fallback_to_email) await fallBackToEmail(trx, delivery, now);
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

  async pass(): Promise<PassResult> {
    const started = await this.startDue();
    if (started.some((s) => s.full)) return { more: true, nextAt: null };
    const next = await nextDeliveryDue(this.o.orm.em.getKnex());
    // Due but not claimable now (lanes or endpoints full, circuits open): a settled send wakes the pacer, the
    // poll covers the rest.
    if (!next || next <= this.o.clock.now()) return { more: false, nextAt: null };
    return { more: false, nextAt: next };
  }

  /** Test hook for crash tests: abandons in-flight sends without recording them, as a killed process would. */
  kill(): void {
    this.abort.abort(new Error('worker killed'));
  }

  revive(): void {
    this.abort = new AbortController();
  }
}
