import { setMaxListeners } from 'node:events';
import type { Sql } from '@routinely/db';
import type { Clock, Logger, PassResult, SecretBox } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import type { Mailer } from '../adapters/mailer.js';
import {
  type ClaimedDelivery,
  claimFast,
  claimWebhooks,
  type Lane,
  nextDeliveryDue,
  releaseLeases,
} from '../db/claim-sql.js';
import { contactEmailsOf, endpointsForSend } from '../db/send-context-sql.js';
import type { CircuitPolicy } from '../domain/circuit.js';
import { type EndpointGate, settleWaker } from '../domain/endpoint-gate.js';
import { type AttemptResult, unsent } from '../domain/outcome.js';
import type { WebhookClient } from '../domain/webhook-client.js';
import { attemptDelivery, prepareWebhookAttempt, type WebhookPreparation } from './attempt.js';
import { type EndpointHold, holdEndpoints } from './endpoint-hold.js';
import { topUpHold } from './hold-top-up.js';
import { OutcomeRecorder } from './outcome-recorder.js';
import { SendContext } from './send-context.js';

export interface DeliveryWorkerOptions {
  db: Sql;
  clock: Clock;
  logger: Logger;
  box: SecretBox;
  sender: WebhookClient;
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
  /** WEBHOOK_RETRY_WAITS_MS: the wait before each retry of a failed try. */
  retryWaitsMs: readonly number[];
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
  private abort = DeliveryWorker.killSwitch();
  /** A stopping host: held endpoints are no longer topped up. */
  private stopping = false;
  private readonly outcomes: OutcomeRecorder;
  private readonly sendsPerEndpoint: number;
  /** A hold tops up once this few deliveries wait at its gate: enough to cover a top-up's transaction. */
  private readonly topUpBelow: number;

  constructor(private readonly o: DeliveryWorkerOptions) {
    this.outcomes = new OutcomeRecorder(o);
    this.sendsPerEndpoint = Math.min(o.perEndpoint, o.perUser);
    this.topUpBelow = Math.max(4 * this.sendsPerEndpoint, Math.floor(o.batchSize / 2));
  }

  /** Claimed deliveries (and top-ups) not yet recorded or given back, per lane; drain and runDue wait for them. */
  private readonly inFlight: Record<Lane, Set<Promise<boolean>>> = { fast: new Set(), webhook: new Set() };
  /** Webhook lane places taken: the sends the held endpoints may have in flight (ADR 081). */
  private webhookPlaces = 0;
  /** The endpoints this worker holds, topped up before they run dry. */
  private readonly holds = new Set<EndpointHold>();
  /** Webhook messages signed ahead, while the endpoint's previous send is in flight. */
  private readonly prepared = new WeakMap<ClaimedDelivery, WebhookPreparation>();
  /** Deliveries tried so far (what runDue answers). */
  private tried = 0;

  /** Claims what each lane has room for and waits until all of it (and its top-ups) is recorded. */
  async runDue(): Promise<number> {
    const before = this.tried;
    await this.startDue();
    for (let open = this.pending(); open.length > 0; open = this.pending()) await Promise.all(open);
    return this.tried - before;
  }

  private pending(): Promise<boolean>[] {
    return [...this.inFlight.fast, ...this.inFlight.webhook];
  }

  /**
   * Claims and starts what each lane has room for without waiting for the sends: a pass never waits on a
   * hanging receiver, and a lane's free place is refilled as soon as a send is recorded (`onSettled`). The
   * fast lane's places are claimed rows; the webhook lane's are sends: a held endpoint takes as many places
   * as it may have sends in flight, however many of its deliveries wait behind its gate (ADR 081). Answers
   * whether a lane claimed a whole batch (more may be due at once).
   */
  private async startDue(): Promise<boolean> {
    // Both lanes claim at once (one round trip less before a burst's first send); each starts what it got.
    const claims = (['fast', 'webhook'] as const).map(async (lane) => {
      const free = this.o.concurrency - (lane === 'fast' ? this.inFlight.fast.size : this.webhookPlaces);
      if (free <= 0) return false;
      const maxEndpoints = Math.max(1, Math.floor(free / this.sendsPerEndpoint));
      const limit = lane === 'fast' ? Math.min(this.o.batchSize, free) : this.o.batchSize;
      const claimed = await this.claim(lane, limit, maxEndpoints);
      if (claimed.length === 0) return false;
      const send = new SendContext(
        await endpointsForSend(this.o.db, claimed),
        await contactEmailsOf(this.o.db, claimed),
        this.o.box,
      );
      const holds = lane === 'webhook' ? holdEndpoints(claimed, this.sendsPerEndpoint, send) : new Map();
      for (const hold of holds.values()) {
        this.webhookPlaces += hold.places;
        this.holds.add(hold);
      }
      const filledLane = lane === 'fast' ? claimed.length === free : holds.size >= maxEndpoints;
      const wake = settleWaker(claimed.length, filledLane, () => this.o.onSettled?.());
      for (const delivery of claimed) this.start(lane, delivery, send, holds.get(delivery.endpoint_id ?? ''), wake);
      return claimed.length === this.o.batchSize;
    });
    const settled = await Promise.allSettled(claims);
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason; // what the other lane claimed is started; the pacer logs the failure
    return settled.some((s) => s.status === 'fulfilled' && s.value);
  }

  /** Starts one claimed delivery; when it settles, frees its places and wakes the pacer as `wake` decides. */
  private start(
    lane: Lane,
    delivery: ClaimedDelivery,
    send: SendContext,
    hold: EndpointHold | undefined,
    wake: (freedPlaces: boolean) => void,
  ): void {
    if (lane === 'webhook' && !hold) this.webhookPlaces += 1; // a webhook row without an endpoint id
    const done: Promise<boolean> = this.process(delivery, send, hold ?? null).finally(() => {
      this.inFlight[lane].delete(done);
      const freed = hold ? this.settle(hold) : lane === 'webhook';
      if (lane === 'webhook' && !hold) this.webhookPlaces -= 1;
      wake(lane === 'fast' || freed);
    });
    this.inFlight[lane].add(done);
  }

  /** One of the hold's deliveries (or its top-up) settled; true when the hold ended and freed its places. */
  private settle(hold: EndpointHold): boolean {
    if (--hold.left > 0) return false;
    this.webhookPlaces -= hold.places;
    this.holds.delete(hold);
    return true;
  }

  /** One claimed delivery: waits for its endpoint's gate, tries it, records it; false when it was not tried. */
  private async process(delivery: ClaimedDelivery, send: SendContext, hold: EndpointHold | null): Promise<boolean> {
    const signal = this.abort.signal;
    if (hold && !(await this.mayStart(delivery, hold.gate))) return false;
    this.tried++;
    let result: AttemptResult;
    // Wall time of the try for the attempts log (a duration, not a domain time: the injected clock stays out).
    const started = performance.now();
    try {
      const nowSeconds = Math.floor(this.o.clock.now().getTime() / 1000);
      const prepared = this.prepared.get(delivery);
      this.prepared.delete(delivery);
      const ctx = { ...this.o, send, nowSeconds, signal, ...(prepared ? { prepared } : {}) };
      const attempt = attemptDelivery(delivery, ctx); // the request is on its way when this returns
      if (hold) this.whileInFlight(hold, nowSeconds);
      result = await attempt;
    } catch (error) {
      result = unsent((error as Error).message, true);
    }
    if (signal.aborted) {
      hold?.gate.close(); // killed: leave the leases to expire, the attempts are retried elsewhere
      return true;
    }
    // The endpoint's next send starts now, while this outcome is written. Only a failure of the receiver
    // itself (not a deleted or disabled endpoint) stops the rest.
    const endpoint = delivery.endpoint_id ? send.endpoints.get(delivery.endpoint_id) : undefined;
    hold?.gate.release(result.ok || !endpoint?.enabled);
    const latencyMs = Math.round(performance.now() - started);
    await this.outcomes
      .record(delivery, result, endpoint, latencyMs, hold?.gate.idle ?? false)
      .catch((error) =>
        this.o.logger.error({ err: error, delivery: delivery.id }, 'could not record delivery outcome'),
      );
    return true;
  }

  /**
   * While a send to a held endpoint is in flight: sign the send that starts at the next answer, so the answer
   * finds it ready, and top the hold up before it runs dry, so no claim stands between two answers (ADR 081).
   */
  private whileInFlight(hold: EndpointHold, nowSeconds: number): void {
    const next = hold.gate.next;
    if (next && !this.prepared.has(next)) {
      try {
        this.prepared.set(next, prepareWebhookAttempt(next, hold.send, nowSeconds));
      } catch {
        // Prepared again when it starts, where the failure is recorded as its try's outcome.
      }
    }
    this.maybeTopUp(hold);
  }

  private maybeTopUp(hold: EndpointHold): void {
    if (!hold.mayTopUp || hold.gate.queued > this.topUpBelow || this.stopping || this.abort.signal.aborted) return;
    hold.toppingUp = true;
    hold.left++; // the hold lasts until its top-up has answered
    const done: Promise<boolean> = this.topUp(hold).finally(() => {
      hold.toppingUp = false;
      this.inFlight.webhook.delete(done);
      if (this.settle(hold)) this.o.onSettled?.();
    });
    this.inFlight.webhook.add(done);
  }

  /** Queues the endpoint's newly due rows at its gate (see `topUpHold`). */
  private async topUp(hold: EndpointHold): Promise<boolean> {
    const rows = await topUpHold(this.o, hold, this.abort.signal);
    hold.left += rows.length;
    const wake = (freedPlaces: boolean) => freedPlaces && this.o.onSettled?.();
    for (const delivery of rows) this.start('webhook', delivery, hold.send, hold, wake);
    return false;
  }

  /**
   * Waits for a place at the endpoint. A send starts only while its lease outlasts the send's timeout, so no
   * other worker can claim it mid-send; a delivery that may not start is given back at once (its lease
   * released), unless the worker was killed, which leaves its leases to expire like a dead process.
   */
  private async mayStart(delivery: ClaimedDelivery, gate: EndpointGate<ClaimedDelivery>): Promise<boolean> {
    const open = await gate.acquire(delivery);
    if (this.abort.signal.aborted) {
      if (open) gate.close();
      return false;
    }
    const leaseLeftMs = delivery.lease_until.getTime() - this.o.clock.now().getTime();
    if (open && leaseLeftMs > this.o.sendTimeoutMs) return true;
    if (open) gate.release(false); // the rest of the hold has leases as old or older: give it all back
    this.prepared.delete(delivery);
    await releaseLeases(this.o.db, [delivery.id], delivery.lease_token).catch((error) =>
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
    // A webhook claim holds the claims' lock for its transaction; a fast claim is one statement.
    return lane === 'fast'
      ? claimFast(this.o.db, request)
      : this.o.db.transaction((sql) => claimWebhooks(sql, request));
  }

  /**
   * Lets started deliveries finish for up to `graceMs` (a stopping host), then abandons the rest as a killed
   * process would: their leases expire and another worker retries the same attempt. Held endpoints are not
   * topped up meanwhile.
   */
  async drain(graceMs: number): Promise<void> {
    this.stopping = true;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    const settled = async () => {
      for (let open = this.pending(); open.length > 0; open = this.pending()) await Promise.all(open);
    };
    await Promise.race([settled(), grace]);
    clearTimeout(timer);
    this.kill();
    await settled();
    this.revive();
  }

  async pass(): Promise<PassResult> {
    const full = await this.startDue();
    // New rows may be due for endpoints this worker holds (a firing, a retry coming due): they top up again.
    for (const hold of this.holds) {
      hold.exhausted = false;
      this.maybeTopUp(hold);
    }
    if (full) return { more: true, nextAt: null };
    const next = await nextDeliveryDue(this.o.db);
    // Due but not claimable now (lanes or endpoints full, circuits open): a settled send wakes the pacer, the
    // poll covers the rest.
    if (!next || next <= this.o.clock.now()) return { more: false, nextAt: null };
    return { more: false, nextAt: next };
  }

  /** What `kill` aborts: every send in flight listens to it (a lane's worth, more than the default warns at). */
  private static killSwitch(): AbortController {
    const controller = new AbortController();
    setMaxListeners(0, controller.signal);
    return controller;
  }

  /** Test hook for crash tests: abandons in-flight sends without recording them, as a killed process would. */
  kill(): void {
    this.abort.abort(new Error('worker killed'));
  }

  revive(): void {
    this.abort = DeliveryWorker.killSwitch();
    this.stopping = false;
  }
}
