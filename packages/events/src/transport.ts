import type { EventEnvelope } from './envelope.js';

/**
 * How a consumer's messages are (re)delivered. `backoffMs[i]` is the wait before attempt i + 2 after a
 * failed attempt (the last entry repeats); the handler runs at most `maxDeliver` times, then the message is
 * dead-lettered. `ackWaitMs` is how long a delivery may stay unacknowledged before the transport assumes the
 * consumer died and delivers it again.
 */
export interface DeliveryPolicy {
  ackWaitMs: number;
  maxDeliver: number;
  backoffMs: readonly number[];
}

/**
 * The policy of consumers that only write rows (copies, inbox, notices): a failure is a database hiccup worth a
 * few quick retries before the message is dead-lettered.
 */
export const ROW_WRITER_POLICY: DeliveryPolicy = {
  ackWaitMs: 30_000,
  maxDeliver: 8,
  backoffMs: [500, 2_000, 10_000, 30_000, 60_000],
};

/** What a transport needs to know of a consumer. `subjects` may end in a `>` wildcard. */
export interface TransportConsumer {
  durable: string;
  subjects: readonly string[];
  policy: DeliveryPolicy;
}

/**
 * One delivery of a message. `attempt` counts deliveries from 1; `payload` is the decoded message (the
 * envelope, if the producer behaved), or its raw text when it was not JSON.
 */
export interface Delivery {
  subject: string;
  attempt: number;
  payload: unknown;
}

/** Resolving acknowledges the message; throwing makes the transport deliver it again after the backoff. */
export type DeliveryHandler = (delivery: Delivery) => Promise<void>;

/**
 * Handles several deliveries the transport holds at once (a burst), in order: one outcome per delivery,
 * `undefined` to acknowledge it, the error to deliver it again after the backoff. Transports that can
 * hand over bursts use it instead of the one-at-a-time handler; each ack follows the commit of its row.
 */
export type BurstHandler = (deliveries: readonly Delivery[]) => Promise<(unknown | undefined)[]>;

export interface Subscription {
  stop(): Promise<void>;
}

/**
 * What the outbox relay publishes to and consumers read from. Both implementations give at-least-once
 * delivery with duplicate suppression by message id; consumers stay idempotent through their inbox.
 */
export interface EventTransport {
  /**
   * Takes the event, in call order. Resolves once the transport holds it: JetStream when the stream stored
   * it, in process when it is queued for every matching consumer (consumers never run inside this call).
   */
  publish(envelope: EventEnvelope): Promise<void>;
  /**
   * Optional: hands over several events at once, in order, without waiting for one confirmation before
   * sending the next (pipelined), and settles one outcome per event. Without it `publishInOrder` publishes
   * one at a time.
   */
  publishMany?(envelopes: readonly EventEnvelope[]): Promise<PromiseSettledResult<void>[]>;
  /**
   * Only for transports that keep nothing across a crash (in process): resolves once every consumer that
   * was subscribed when `eventId` was published acked or dead-lettered it, rejects when one gave up. The
   * relay retires the outbox row only then. Resolves at once for an id it does not know (already settled).
   */
  whenHandled?(eventId: string): Promise<void>;
  /** `burst`, when given, is used by transports that hold several messages at once (JetStream). */
  subscribe(consumer: TransportConsumer, handler: DeliveryHandler, burst?: BurstHandler): Promise<Subscription>;
  close(): Promise<void>;
}

/** The wait before the attempt after `attempt` failed. */
export function backoffAfter(policy: DeliveryPolicy, attempt: number): number {
  const { backoffMs } = policy;
  if (backoffMs.length === 0) return 0;
  return backoffMs[Math.min(attempt, backoffMs.length) - 1] ?? 0;
}

export function subjectMatches(pattern: string, subject: string): boolean {
  if (pattern.endsWith('.>')) return subject.startsWith(pattern.slice(0, -1));
  if (!pattern.includes('*')) return pattern === subject;
  const p = pattern.split('.');
  const s = subject.split('.');
  return p.length === s.length && p.every((part, i) => part === '*' || part === s[i]);
}

/** A burst's outcome of one delivery: `undefined` when `work` succeeded, else its error (to deliver again). */
export function outcomeOf(work: Promise<void>): Promise<unknown | undefined> {
  return work.then(
    () => undefined,
    (error: unknown) => error ?? new Error('handler failed'),
  );
}

/**
 * Publishes `envelopes` in order: pipelined through `publishMany` where the transport has it, otherwise one
 * at a time, stopping at the first failure (the rest counts as failed with the same error, unpublished).
 */
export async function publishInOrder(
  transport: EventTransport,
  envelopes: readonly EventEnvelope[],
): Promise<PromiseSettledResult<void>[]> {
  if (transport.publishMany) return transport.publishMany(envelopes);
  const outcomes: PromiseSettledResult<void>[] = [];
  let failure: PromiseRejectedResult | undefined;
  for (const envelope of envelopes) {
    // After the first failure nothing more is sent: the rest counts as failed with the same error.
    failure ??= await transport.publish(envelope).then(
      () => undefined,
      (reason: unknown) => ({ status: 'rejected', reason }) as const,
    );
    outcomes.push(failure ?? { status: 'fulfilled', value: undefined });
  }
  return outcomes;
}
