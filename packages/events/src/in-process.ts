import { BURST } from './bursts.js';
import type { EventEnvelope } from './envelope.js';
import {
  type BurstHandler,
  backoffAfter,
  type DeliveryHandler,
  type EventTransport,
  type Subscription,
  subjectMatches,
  type TransportConsumer,
} from './transport.js';

/** Settles once every consumer an event was queued for has finished with it. */
class Settlement {
  remaining = 0;
  private failed = false;
  private resolve!: () => void;
  private reject!: (error: Error) => void;
  readonly promise = new Promise<void>((resolve, reject) => {
    this.resolve = resolve;
    this.reject = reject;
  });

  constructor(
    private readonly eventId: string,
    private readonly onSettled: () => void,
  ) {
    // Nobody may be waiting (a test publishing directly): an unobserved rejection must not crash the process.
    this.promise.catch(() => {});
  }

  finish(ok: boolean): void {
    if (!ok) this.failed = true;
    if (--this.remaining > 0) return;
    this.onSettled();
    if (this.failed) this.reject(new Error(`event ${this.eventId} was not handled by every consumer`));
    else this.resolve();
  }
}

interface Queued {
  envelope: EventEnvelope;
  settlement: Settlement;
}

interface LocalConsumer {
  spec: TransportConsumer;
  handler: DeliveryHandler;
  burst: BurstHandler | undefined;
  queue: Queued[];
  queued: Set<string>;
  /** Ids already acked: a republished event is skipped, like JetStream's duplicate window. */
  seen: Set<string>;
  draining: Promise<void> | undefined;
  stopped: boolean;
  /** Ends a backoff wait early when the consumer stops. */
  wake: (() => void) | undefined;
}

const SEEN_LIMIT = 100_000;

/**
 * The all-in-one transport. `publish` only queues the event for each matching consumer; every consumer drains
 * its own queue in publish order on a later tick, so a slow consumer delays neither the producer nor the other
 * consumers. A failed attempt waits for the consumer's backoff and blocks that consumer's queue (keeping its
 * order); after `maxDeliver` failed attempts the event counts as given up for the relay (the consumer layer
 * dead-letters on the last attempt, so this only happens when even that failed). What queued while a delivery
 * ran goes to the consumer's burst handler together (at most `BURST`, one transaction, as over JetStream); an
 * event the burst did not handle is then retried alone, after the others. Nothing here survives a crash:
 * `whenHandled` tells the relay when the outbox row may be retired.
 */
export class InProcessTransport implements EventTransport {
  private readonly consumers = new Map<string, LocalConsumer>();
  private readonly settlements = new Map<string, Settlement>();

  async publish(envelope: EventEnvelope): Promise<void> {
    const wanting = [...this.consumers.values()].filter(
      (consumer) =>
        !consumer.stopped &&
        consumer.spec.subjects.some((s) => subjectMatches(s, envelope.type)) &&
        !consumer.seen.has(envelope.id) &&
        !consumer.queued.has(envelope.id),
    );
    // Most events of a busy producer have no consumer in this process (a routine fill's task events): nothing to copy.
    if (wanting.length === 0) return;
    // A copy through JSON, as over the wire: consumers never share (or mutate) the producer's object.
    const copy = JSON.parse(JSON.stringify(envelope)) as EventEnvelope;
    for (const consumer of wanting) {
      let settlement = this.settlements.get(copy.id);
      if (!settlement) {
        settlement = new Settlement(copy.id, () => this.settlements.delete(copy.id));
        this.settlements.set(copy.id, settlement);
      }
      settlement.remaining++;
      consumer.queue.push({ envelope: copy, settlement });
      consumer.queued.add(copy.id);
      // Never inside the caller's stack: the producer's publish returns before any handler starts.
      if (!consumer.draining) consumer.draining = new Promise((r) => setImmediate(r)).then(() => this.drain(consumer));
    }
  }

  whenHandled(eventId: string): Promise<void> {
    return this.settlements.get(eventId)?.promise ?? Promise.resolve();
  }

  private async drain(consumer: LocalConsumer): Promise<void> {
    while (!consumer.stopped && consumer.queue.length > 0) {
      const taken = consumer.queue.slice(0, consumer.burst ? BURST : 1);
      const handled =
        taken.length > 1
          ? await this.deliverBurst(consumer, taken)
          : [await this.deliver(consumer, (taken[0] as Queued).envelope)];
      consumer.queue.splice(0, taken.length);
      for (const [index, next] of taken.entries()) {
        consumer.queued.delete(next.envelope.id);
        const ok = handled[index] === true;
        if (ok) {
          if (consumer.seen.size >= SEEN_LIMIT) consumer.seen.clear();
          consumer.seen.add(next.envelope.id);
        }
        next.settlement.finish(ok);
      }
    }
    consumer.draining = undefined;
  }

  /** A burst as the first attempt of each of its events; the ones it did not handle are retried alone. */
  private async deliverBurst(consumer: LocalConsumer, taken: readonly Queued[]): Promise<boolean[]> {
    const deliveries = taken.map(({ envelope }) => ({ subject: envelope.type, attempt: 1, payload: envelope }));
    const outcomes = await (consumer.burst as BurstHandler)(deliveries).catch((error: unknown) =>
      deliveries.map(() => error ?? new Error('burst failed')),
    );
    const handled: boolean[] = [];
    for (const [index, { envelope }] of taken.entries()) {
      handled.push(outcomes[index] === undefined ? true : await this.deliver(consumer, envelope, 1));
    }
    return handled;
  }

  /** Attempts after `failedAttempts` failed ones, each after its backoff, until one succeeds or `maxDeliver`. */
  private async deliver(consumer: LocalConsumer, envelope: EventEnvelope, failedAttempts = 0): Promise<boolean> {
    const { policy } = consumer.spec;
    for (let attempt = failedAttempts + 1; ; attempt++) {
      if (attempt > 1) {
        if (attempt > policy.maxDeliver || consumer.stopped) return false;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, backoffAfter(policy, attempt - 1));
          consumer.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        consumer.wake = undefined;
        if (consumer.stopped) return false;
      }
      try {
        await consumer.handler({ subject: envelope.type, attempt, payload: envelope });
        return true;
      } catch {
        // retried after its backoff, or given up
      }
    }
  }

  async subscribe(spec: TransportConsumer, handler: DeliveryHandler, burst?: BurstHandler): Promise<Subscription> {
    const existing = this.consumers.get(spec.durable);
    if (existing) await this.stopConsumer(existing);
    const consumer: LocalConsumer = {
      spec,
      handler,
      burst,
      queue: [],
      queued: new Set(),
      seen: existing?.seen ?? new Set(),
      draining: undefined,
      stopped: false,
      wake: undefined,
    };
    this.consumers.set(spec.durable, consumer);
    return {
      stop: async () => {
        if (this.consumers.get(spec.durable) === consumer) this.consumers.delete(spec.durable);
        await this.stopConsumer(consumer);
      },
    };
  }

  /** Lets the running handler finish; what is still queued is given up (the relay publishes it again). */
  private async stopConsumer(consumer: LocalConsumer): Promise<void> {
    consumer.stopped = true;
    consumer.wake?.();
    await consumer.draining;
    for (const queued of consumer.queue.splice(0)) queued.settlement.finish(false);
    consumer.queued.clear();
  }

  async close(): Promise<void> {
    const consumers = [...this.consumers.values()];
    this.consumers.clear();
    for (const consumer of consumers) await this.stopConsumer(consumer);
  }
}
