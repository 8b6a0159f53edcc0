import {
  AckPolicy,
  type ConsumerMessages,
  connect,
  DeliverPolicy,
  headers,
  type JetStreamClient,
  type JetStreamManager,
  JSONCodec,
  type NatsConnection,
  nanos,
  RetentionPolicy,
} from 'nats';
import type { Logger } from 'pino';
import { type EventEnvelope, envelopeSchema } from './envelope.js';
import type { EventHandler, EventTransport, Subscription } from './transport.js';

const codec = JSONCodec<unknown>();

/**
 * NATS JetStream transport. One stream per producing service (`<svc>.>`), publishes carry
 * `Nats-Msg-Id` = event id so a relay that publishes twice after a crash stores the event once.
 * Consumers are durable pull consumers with explicit ack; a failed handler naks with a delay.
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
    const nc = await connect({ servers: url, name: 'routinely', maxReconnectAttempts: -1 });
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
    await this.ensureStream(envelope.type);
    // The trace also rides in the headers, where tools that read NATS traffic look for it.
    const traceHeaders = envelope.traceparent ? headers() : undefined;
    if (traceHeaders && envelope.traceparent) traceHeaders.set('traceparent', envelope.traceparent);
    await this.js.publish(this.subject(envelope.type), codec.encode(envelope), {
      msgID: envelope.id,
      ...(traceHeaders ? { headers: traceHeaders } : {}),
    });
  }

  async subscribe(durable: string, subject: string, handler: EventHandler): Promise<Subscription> {
    const stream = await this.ensureStream(subject);
    const durableName = durable.replace(/[^A-Za-z0-9_-]/g, '_');
    try {
      await this.jsm.consumers.info(stream, durableName);
    } catch {
      await this.jsm.consumers.add(stream, {
        durable_name: durableName,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subject: this.subject(subject),
        ack_wait: nanos(30_000),
        max_deliver: -1,
      });
    }
    const consumer = await this.js.consumers.get(stream, durableName);
    const messages: ConsumerMessages = await consumer.consume({ max_messages: 64 });
    const loop = (async () => {
      for await (const message of messages) {
        let envelope: EventEnvelope;
        try {
          // Anything on our subjects must be an envelope; a malformed one is dropped, not retried forever.
          envelope = envelopeSchema.parse(codec.decode(message.data));
        } catch (error) {
          this.logger.error({ err: error, subject: message.subject }, 'undecodable event dropped');
          message.term();
          continue;
        }
        try {
          await handler(envelope);
          message.ack();
        } catch (error) {
          const delay = Math.min(60_000, 500 * 2 ** Math.min(message.info.redeliveryCount, 7));
          this.logger.warn({ err: error, event: envelope.id, type: envelope.type, durable }, 'event handler failed');
          message.nak(delay);
        }
      }
    })();
    return {
      stop: async () => {
        messages.stop();
        await loop.catch(() => {});
      },
    };
  }

  /** Number of messages stored in the stream that holds `type` (used by tests and health). */
  async storedCount(type: string): Promise<number> {
    const info = await this.jsm.streams.info(await this.ensureStream(type));
    return info.state.messages;
  }

  async deleteStreams(): Promise<void> {
    for (const name of this.ensured) await this.jsm.streams.delete(name).catch(() => {});
    this.ensured.clear();
  }

  async close(): Promise<void> {
    await this.nc.drain().catch(() => this.nc.close());
  }
}
