import type { EventEnvelope } from './envelope.js';
import { type EventHandler, type EventTransport, type Subscription, subjectMatches } from './transport.js';

interface Consumer {
  durable: string;
  subject: string;
  handler: EventHandler;
  seen: Set<string>;
}

/**
 * The all-in-one transport. publish() resolves only after every matching consumer has handled the event,
 * so the outbox row stays unpublished (and is retried by the relay) until every consumer has it: durability
 * comes from the outbox, as with JetStream. Consumers see each message id once, like JetStream's
 * duplicate window.
 */
export class InProcessTransport implements EventTransport {
  private readonly consumers = new Map<string, Consumer>();
  constructor(private readonly options: { retries?: number; retryDelayMs?: number } = {}) {}

  async publish(envelope: EventEnvelope): Promise<void> {
    const failures: unknown[] = [];
    for (const consumer of this.consumers.values()) {
      if (!subjectMatches(consumer.subject, envelope.type) || consumer.seen.has(envelope.id)) continue;
      try {
        await this.deliver(consumer, envelope);
        consumer.seen.add(envelope.id);
        if (consumer.seen.size > 100_000) consumer.seen.clear();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw new AggregateError(failures, `event ${envelope.id} not handled by every consumer`);
  }

  private async deliver(consumer: Consumer, envelope: EventEnvelope): Promise<void> {
    const retries = this.options.retries ?? 3;
    for (let attempt = 0; ; attempt++) {
      try {
        return await consumer.handler(envelope);
      } catch (error) {
        if (attempt >= retries) throw error;
        await new Promise((r) => setTimeout(r, (this.options.retryDelayMs ?? 50) * 2 ** attempt));
      }
    }
  }

  async subscribe(durable: string, subject: string, handler: EventHandler): Promise<Subscription> {
    const existing = this.consumers.get(durable);
    this.consumers.set(durable, { durable, subject, handler, seen: existing?.seen ?? new Set() });
    return { stop: async () => void this.consumers.delete(durable) };
  }

  async close(): Promise<void> {
    this.consumers.clear();
  }
}
