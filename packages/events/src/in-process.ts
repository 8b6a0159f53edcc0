import type { EventEnvelope } from './envelope.js';
import {
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
 * dead-letters on the last attempt, so this only happens when even that failed). Nothing here survives a
 * crash: `whenHandled` tells the relay when the outbox row may be retired.
 */
export class InProcessTransport implements EventTransport {
  private readonly consumers = new Map<string, LocalConsumer>();
  private readonly settlements = new Map<string, Settlement>();

  async publish(envelope: EventEnvelope): Promise<void> {
    // A copy through JSON, as over the wire: consumers never share (or mutate) the producer's object.
    const copy = JSON.parse(JSON.stringify(envelope)) as EventEnvelope;
    for (const consumer of this.consumers.values()) {
      if (consumer.stopped || !consumer.spec.subjects.some((s) => subjectMatches(s, copy.type))) continue;
      if (consumer.seen.has(copy.id) || consumer.queued.has(copy.id)) continue;
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
    while (!consumer.stopped) {
      const next = consumer.queue[0];
      if (!next) break;
      const ok = await this.deliver(consumer, next.envelope);
      consumer.queue.shift();
      consumer.queued.delete(next.envelope.id);
      if (ok) {
        if (consumer.seen.size >= SEEN_LIMIT) consumer.seen.clear();
        consumer.seen.add(next.envelope.id);
      }
      next.settlement.finish(ok);
    }
    consumer.draining = undefined;
  }

  private async deliver(consumer: LocalConsumer, envelope: EventEnvelope): Promise<boolean> {
    const { policy } = consumer.spec;
    for (let attempt = 1; ; attempt++) {
      try {
        await consumer.handler({ subject: envelope.type, attempt, payload: envelope });
        return true;
      } catch {
        if (attempt >= policy.maxDeliver || consumer.stopped) return false;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, backoffAfter(policy, attempt));
          consumer.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        consumer.wake = undefined;
        if (consumer.stopped) return false;
      }
    }
  }

  async subscribe(spec: TransportConsumer, handler: DeliveryHandler): Promise<Subscription> {
    const existing = this.consumers.get(spec.durable);
    if (existing) await this.stopConsumer(existing);
    const consumer: LocalConsumer = {
      spec,
      handler,
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
