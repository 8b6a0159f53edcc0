import { defineEntity, type EntityManager, type Orm, p } from '@routinely/db';
import { type Logger, Pacer, runInEventSpan, systemClock } from '@routinely/platform';
import type { EventEnvelope } from './envelope.js';
import type { EventTransport } from './transport.js';

/** Events waiting to be published, written in the same transaction as the change they describe. */
export const OutboxMessage = defineEntity({
  name: 'OutboxMessage',
  tableName: 'outbox',
  properties: {
    id: p.uuid().primary(),
    subject: p.string().length(200),
    payload: p.json<EventEnvelope>(),
    createdAt: p.datetime().fieldName('created_at'),
    publishedAt: p.datetime().nullable().fieldName('published_at').index('outbox_published_at_idx'),
  },
});

/** Ids of events a consumer has already handled, written in the consumer's own transaction. */
export const InboxMessage = defineEntity({
  name: 'InboxMessage',
  tableName: 'inbox',
  properties: {
    consumer: p.string().length(100).primary(),
    eventId: p.uuid().primary().fieldName('event_id'),
    processedAt: p.datetime().fieldName('processed_at'),
  },
});

export const eventEntities = [OutboxMessage, InboxMessage];

/** Adds events to the outbox inside the caller's unit of work; they commit (or not) with it. */
export function enqueue(em: EntityManager, ...events: EventEnvelope[]): void {
  for (const event of events) {
    em.create(OutboxMessage, {
      id: event.id,
      subject: event.type,
      payload: event,
      createdAt: new Date(event.occurred_at),
      publishedAt: null,
    });
  }
}

export interface RelayOptions {
  orm: Orm;
  transport: EventTransport;
  logger: Logger;
  pollMs?: number;
  batchSize?: number;
  /** Test hook: runs after rows are claimed and before they are published. */
  beforePublish?: (events: EventEnvelope[]) => Promise<void>;
}

/**
 * Publishes outbox rows in id (time) order. Rows are claimed with FOR UPDATE SKIP LOCKED inside a
 * transaction that marks them published, so replicas never publish the same row concurrently; a crash
 * between publish and commit republishes with the same message id, which JetStream and the consumers'
 * inboxes both absorb. Passes run on every `kick()` (after a commit) and at least every `pollMs`.
 */
export class OutboxRelay {
  private readonly pacer: Pacer;

  constructor(private readonly options: RelayOptions) {
    const batchSize = options.batchSize ?? 200;
    this.pacer = new Pacer(
      'outbox-relay',
      async () => ({ more: (await this.publishBatch()) >= batchSize, nextAt: null }),
      systemClock,
      options.pollMs ?? 250,
      options.logger,
    );
  }

  start(): void {
    this.pacer.start();
  }

  /** Publish now instead of at the next poll (call after a commit that enqueued events). */
  kick(): void {
    this.pacer.wake();
  }

  stop(): Promise<void> {
    return this.pacer.stop();
  }

  /** One pass; returns how many events were published. */
  async publishBatch(): Promise<number> {
    const knex = this.options.orm.em.getKnex();
    return knex.transaction(async (trx) => {
      const { rows } = await trx.raw<{ rows: { id: string; payload: EventEnvelope }[] }>(
        'select id, payload from outbox where published_at is null order by id limit ? for update skip locked',
        [this.options.batchSize ?? 200],
      );
      if (rows.length === 0) return 0;
      const events = rows.map((r) => r.payload);
      await this.options.beforePublish?.(events);
      for (const event of events) await this.options.transport.publish(event);
      await trx.raw('update outbox set published_at = now() where id = any(?::uuid[])', [rows.map((r) => r.id)]);
      return rows.length;
    });
  }
}

export type EventConsumerHandler = (em: EntityManager, envelope: EventEnvelope) => Promise<void>;

/**
 * Subscribes a durable consumer whose handler runs in a transaction together with the inbox insert:
 * a redelivered event finds its id in the inbox and is skipped, so handling is exactly-once in effect.
 */
export async function consumeEvents(options: {
  orm: Orm;
  transport: EventTransport;
  durable: string;
  subject: string;
  handle: EventConsumerHandler;
}) {
  return options.transport.subscribe(options.durable, options.subject, async (envelope) => {
    // The handler's work joins the trace of the change that published the event.
    await runInEventSpan(envelope, () => handleOnce(envelope), options.durable);
  });
  async function handleOnce(envelope: EventEnvelope) {
    await options.orm.em.fork().transactional(async (em) => {
      const inserted = await em
        .getConnection()
        .execute<{ event_id: string }[]>(
          'insert into inbox (consumer, event_id, processed_at) values (?, ?, now()) on conflict do nothing returning event_id',
          [options.durable, envelope.id],
          'all',
          em.getTransactionContext(),
        );
      if (inserted.length === 0) return;
      await options.handle(em, envelope);
    });
  }
}
