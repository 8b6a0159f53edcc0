import {
  AckPolicy,
  type ConsumerMessages,
  connect,
  DeliverPolicy,
  headers,
  type JetStreamClient,
  type JetStreamManager,
  JSONCodec,
  type JsMsg,
  type NatsConnection,
  nanos,
  RetentionPolicy,
} from 'nats';
import type { Logger } from 'pino';
import { BURST, drainInBursts } from './bursts.js';
import type { EventEnvelope } from './envelope.js';
import {
  type BurstHandler,
  backoffAfter,
  type Delivery,
  type DeliveryHandler,
  type EventTransport,
  outcomeOf,
  type Subscription,
  subjectMatches,
  type TransportConsumer,
} from './transport.js';

const codec = JSONCodec<unknown>();

/** The message as JSON, or its raw text when it is not JSON (the consumer layer dead-letters that). */
function decode(data: Uint8Array): unknown {
  try {
    return codec.decode(data);
  } catch {
    return new TextDecoder().decode(data);
  }
}

/** Each delivery through `handler` in order: the outcomes a `BurstHandler` gives. */
async function oneByOne(handler: DeliveryHandler, deliveries: readonly Delivery[]): Promise<unknown[]> {
  const outcomes: unknown[] = [];
  for (const delivery of deliveries) outcomes.push(await outcomeOf(handler(delivery)));
  return outcomes;
}

/** One subject, or the narrowest `>` wildcard covering several (`auth.user.registered|updated` -> `auth.user.>`). */
export function commonFilter(subjects: readonly string[]): string {
  const [first, ...rest] = subjects.map((s) => s.split('.'));
  if (!first) throw new Error('a consumer needs at least one subject');
  if (rest.length === 0) return first.join('.');
  let common = 0;
  while (common < first.length - 1 && first[common] !== '>' && rest.every((r) => r[common] === first[common])) common++;
  return [...first.slice(0, common), '>'].join('.');
}

/**
 * NATS JetStream transport. One stream per producing service (`<svc>.>`), publishes carry
 * `Nats-Msg-Id` = event id so a relay that publishes twice after a crash stores the event once.
 * Consumers are durable pull consumers with explicit ack and the consumer's delivery policy.
 * `prefix` namespaces subjects and streams (tests share one server).
 */
export class JetStreamTransport implements EventTransport {
  private readonly ensured = new Set<string>();
  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly logger: Logger,
    private readonly prefix: string,
  ) {}

  static async connect(url: string, logger: Logger, prefix = ''): Promise<JetStreamTransport> {
    // No async traces: otherwise every publish (a request awaiting JetStream's ack) builds two Error objects
    // for their stacks (2-3 % of all samples under the create load); errors keep message and code.
    const nc = await connect({ servers: url, name: 'routinely', maxReconnectAttempts: -1, noAsyncTraces: true });
    const jsm = await nc.jetstreamManager();
    return new JetStreamTransport(nc, nc.jetstream(), jsm, logger, prefix);
  }

  private subject(type: string): string {
    return this.prefix ? `${this.prefix}.${type}` : type;
  }

  private streamFor(type: string): string {
    const service = type.split('.')[0] ?? 'events';
    return `${this.prefix ? `${this.prefix.replace(/[^A-Za-z0-9_-]/g, '_')}_` : ''}ROUTINELY_${service.toUpperCase()}`;
  }

  async ensureStream(type: string): Promise<string> {
    const name = this.streamFor(type);
    if (this.ensured.has(name)) return name;
    const service = type.split('.')[0];
    const config = {
      name,
      subjects: [this.subject(`${service}.>`)],
      retention: RetentionPolicy.Limits,
      max_age: nanos(7 * 24 * 3600 * 1000),
      duplicate_window: nanos(10 * 60 * 1000),
    };
    try {
      await this.jsm.streams.info(name);
    } catch {
      await this.jsm.streams.add(config);
    }
    this.ensured.add(name);
    return name;
  }

  async publish(envelope: EventEnvelope): Promise<void> {
    const [outcome] = await this.publishMany([envelope]);
    if (outcome?.status === 'rejected') throw outcome.reason;
  }

  /**
   * Sends every event before awaiting any acknowledgement (`js.publish` writes its request synchronously,
   * on one connection, so the stream stores them in this order), then settles them together: a batch costs
   * about one round trip instead of one per event.
   */
  async publishMany(envelopes: readonly EventEnvelope[]): Promise<PromiseSettledResult<void>[]> {
    try {
      for (const type of new Set(envelopes.map((e) => e.type))) await this.ensureStream(type);
    } catch (error) {
      return envelopes.map(() => ({ status: 'rejected', reason: error }));
    }
    return Promise.allSettled(envelopes.map((envelope) => this.send(envelope)));
  }

  private async send(envelope: EventEnvelope): Promise<void> {
    // The trace also rides in the headers, where tools that read NATS traffic look for it.
    const traceHeaders = envelope.traceparent ? headers() : undefined;
    if (traceHeaders && envelope.traceparent) traceHeaders.set('traceparent', envelope.traceparent);
    await this.js.publish(this.subject(envelope.type), codec.encode(envelope), {
      msgID: envelope.id,
      ...(traceHeaders ? { headers: traceHeaders } : {}),
    });
  }

  /**
   * One durable pull consumer per stream the subjects live in (NATS 2.9 filters on one subject, so several
   * subjects of a stream share their narrowest common wildcard and the others are acked unseen). The messages
   * that arrived while the previous ones were handled go to `burst` together (one transaction for their inbox
   * rows and handlers), a lone message to `handler`; each is acked after that commit, a failed one naks
   * with the policy's backoff. The server's `max_deliver` is one
   * above the policy's so that a delivery that timed out on the last attempt still reaches the consumer layer,
   * which then dead-letters it instead of the server dropping it silently.
   */
  async subscribe(spec: TransportConsumer, handler: DeliveryHandler, burst?: BurstHandler): Promise<Subscription> {
    const byStream = new Map<string, string[]>();
    for (const subject of spec.subjects) {
      const stream = await this.ensureStream(subject);
      byStream.set(stream, [...(byStream.get(stream) ?? []), subject]);
    }
    const loops: { stop: () => void; loop: Promise<void> }[] = [];
    for (const [stream, subjects] of byStream) {
      loops.push(await this.consumeStream(stream, subjects, spec, handler, burst));
    }
    return {
      stop: async () => {
        for (const { stop } of loops) stop();
        for (const { loop } of loops) await loop.catch(() => {});
      },
    };
  }

  private async consumeStream(
    stream: string,
    subjects: string[],
    spec: TransportConsumer,
    handler: DeliveryHandler,
    burstHandler: BurstHandler | undefined,
  ) {
    const durableName = spec.durable.replace(/[^A-Za-z0-9_-]/g, '_');
    const { policy } = spec;
    const timing = {
      ack_wait: nanos(policy.ackWaitMs),
      max_deliver: policy.maxDeliver + 1,
      // The server replaces ack_wait by backoff[n] for delivery n, so none may be shorter than ack_wait.
      ...(policy.backoffMs.length > 0
        ? { backoff: policy.backoffMs.map((ms) => nanos(Math.max(ms, policy.ackWaitMs))) }
        : {}),
    };
    const exists = await this.jsm.consumers.info(stream, durableName).then(
      () => true,
      () => false,
    );
    if (exists) {
      await this.jsm.consumers.update(stream, durableName, timing).catch((error: unknown) => {
        this.logger.warn({ err: error, durable: spec.durable }, 'consumer delivery policy not updated');
      });
    } else {
      await this.jsm.consumers.add(stream, {
        durable_name: durableName,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subject: this.subject(commonFilter(subjects)),
        ...timing,
      });
    }
    const consumer = await this.js.consumers.get(stream, durableName);
    const messages: ConsumerMessages = await consumer.consume({ max_messages: BURST });
    const unprefix = (subject: string) => (this.prefix ? subject.slice(this.prefix.length + 1) : subject);
    const handleBurst = async (burst: JsMsg[]) => {
      const ours = burst.filter((message) => {
        const wanted = subjects.some((s) => subjectMatches(s, unprefix(message.subject)));
        if (!wanted) message.ack();
        return wanted;
      });
      if (ours.length === 0) return;
      const deliveries = ours.map((message) => ({
        subject: unprefix(message.subject),
        attempt: message.info.redeliveryCount,
        payload: decode(message.data),
      }));
      const outcomes =
        burstHandler && deliveries.length > 1
          ? await burstHandler(deliveries).catch((error: unknown) => deliveries.map(() => error ?? 'failed'))
          : await oneByOne(handler, deliveries);
      for (const [i, message] of ours.entries()) {
        const failure = outcomes[i];
        if (failure === undefined) {
          message.ack();
          continue;
        }
        const { subject, attempt } = deliveries[i] as Delivery;
        this.logger.warn({ err: failure, subject, durable: spec.durable, attempt }, 'event handler failed');
        message.nak(backoffAfter(policy, attempt));
      }
    };
    let stopping = false;
    const stop = () => {
      stopping = true;
      messages.stop();
    };
    return { stop, loop: drainInBursts(messages, handleBurst, () => stopping) };
  }

  /** Number of messages stored in the stream that holds `type` (used by tests and health). */
  async storedCount(type: string): Promise<number> {
    const info = await this.jsm.streams.info(await this.ensureStream(type));
    return info.state.messages;
  }

  /** The server-side configuration of a durable consumer on the stream that holds `type` (tests, health). */
  async consumerConfig(type: string, durable: string) {
    const info = await this.jsm.consumers.info(await this.ensureStream(type), durable.replace(/[^A-Za-z0-9_-]/g, '_'));
    return info.config;
  }

  async deleteStreams(): Promise<void> {
    for (const name of this.ensured) await this.jsm.streams.delete(name).catch(() => {});
    this.ensured.clear();
  }

  async close(): Promise<void> {
    await this.nc.drain().catch(() => this.nc.close());
  }
}
