import type { Orm } from '@routinely/db';
import { Sql } from '@routinely/db';
import { quietLogger, requireEnv, sqlRows, uniqueName } from '@routinely/testkit';
import { connect, nanos } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defineConsumer,
  type EventTransport,
  JetStreamTransport,
  OutboxRelay,
  startConsumer,
  taskEvents,
} from '../src/index.js';
import { commitEvents, count, openEventsDatabase, taskCreated } from './support.js';

const logger = quietLogger();
let orm: Orm;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ orm, close } = await openEventsDatabase());
});
afterAll(() => close?.());

describe('outbox relay over JetStream', () => {
  it('publishes once after a relay dies holding its lease, and once after a publish whose ack was lost', async () => {
    const transport = await JetStreamTransport.connect(requireEnv('NATS_URL'), logger, uniqueName('outbox'));
    try {
      const handled: string[] = [];
      const consumer = defineConsumer({
        durable: 'test-consumer',
        events: [taskEvents.taskCreated],
        policy: { ackWaitMs: 5_000, maxDeliver: 4, backoffMs: [100, 200, 10_000] },
        handle: async (_sql, event) => void handled.push(event.id),
      });
      const sub = await startConsumer(consumer, { db: Sql.of(orm), transport, logger });
      // The consumer's delivery policy is the JetStream consumer's configuration.
      expect(await transport.consumerConfig('task.task.created', 'test-consumer')).toMatchObject({
        ack_wait: nanos(5_000),
        max_deliver: 5,
        // Never shorter than ack_wait: the server uses backoff[n] as the ack wait of delivery n.
        backoff: [nanos(5_000), nanos(5_000), nanos(10_000)],
      });
      // A relay claims the row and dies before publishing: nobody else publishes it until its lease ends.
      const first = taskCreated();
      await commitEvents(orm, [first]);
      const dead = new OutboxRelay({
        db: Sql.of(orm),
        transport,
        logger,
        leaseMs: 1_000,
        beforePublish: () => new Promise(() => {}),
      });
      void dead.publishBatch();
      await expect.poll(() => count(orm, 'outbox where claimed_until is not null')).toBe(1);
      const relay = new OutboxRelay({ db: Sql.of(orm), transport, logger });
      expect(await relay.publishBatch()).toBe(0);
      expect(await transport.storedCount('task.task.created')).toBe(0);
      await expect.poll(() => relay.publishBatch(), { timeout: 10_000, interval: 200 }).toBe(1);
      // The event reaches the stream but the relay never hears back: the row is released and published
      // again at once, and the stream's duplicate window stores it once.
      const second = taskCreated();
      await commitEvents(orm, [second]);
      const lossy: EventTransport = {
        publish: async (e) => {
          await transport.publish(e);
          throw new Error('ack lost');
        },
        subscribe: transport.subscribe.bind(transport),
        close: async () => {},
      };
      await expect(new OutboxRelay({ db: Sql.of(orm), transport: lossy, logger }).publishBatch()).rejects.toThrow(
        'ack lost',
      );
      expect(await relay.publishBatch()).toBe(1);
      expect(await relay.publishBatch()).toBe(0);
      expect(await count(orm, 'outbox where published_at is null')).toBe(0);
      expect(await transport.storedCount('task.task.created')).toBe(2);
      await expect.poll(() => handled.length, { timeout: 10_000 }).toBe(2);
      expect(new Set(handled)).toEqual(new Set([first.id, second.id]));
      expect(await count(orm, "inbox where consumer = 'test-consumer'")).toBe(2);
      await sub.stop();
      // A redeployed consumer with a new policy updates the durable consumer it finds.
      const policy = { ackWaitMs: 7_000, maxDeliver: 6, backoffMs: [1_000, 9_000] };
      const restarted = await startConsumer({ ...consumer, policy }, { db: Sql.of(orm), transport, logger });
      expect(await transport.consumerConfig('task.task.created', 'test-consumer')).toMatchObject({
        ack_wait: nanos(7_000),
        max_deliver: 7,
        backoff: [nanos(7_000), nanos(9_000)],
      });
      await restarted.stop();
    } finally {
      await transport.deleteStreams();
      await transport.close();
    }
  });

  it('dead-letters after maxDeliver failed deliveries and a message that is not an envelope at once', async () => {
    const prefix = uniqueName('dlq');
    const transport = await JetStreamTransport.connect(requireEnv('NATS_URL'), logger, prefix);
    const nc = await connect({ servers: requireEnv('NATS_URL') });
    try {
      const attempts: string[] = [];
      const consumer = defineConsumer({
        durable: 'test-dlq',
        events: [taskEvents.taskCreated],
        policy: { ackWaitMs: 5_000, maxDeliver: 3, backoffMs: [50, 100] },
        handle: async (_sql, event) => {
          attempts.push(event.id);
          throw new Error('always fails');
        },
      });
      const sub = await startConsumer(consumer, { db: Sql.of(orm), transport, logger });
      const event = taskCreated();
      await transport.publish(event);
      await nc.jetstream().publish(`${prefix}.task.task.created`, new TextEncoder().encode('not json {'));
      await expect.poll(() => count(orm, "event_dead_letter where consumer = 'test-dlq'"), { timeout: 15_000 }).toBe(2);
      const rows = await sqlRows<{ event_id: string | null; attempts: number; error: string; payload: unknown }>(
        orm,
        "select event_id, attempts, error, payload from event_dead_letter where consumer = 'test-dlq' order by event_id nulls first",
      );
      expect(rows).toEqual([
        { event_id: null, attempts: 1, error: expect.stringContaining('not an event envelope'), payload: 'not json {' },
        { event_id: event.id, attempts: 3, error: 'always fails', payload: expect.objectContaining({ id: event.id }) },
      ]);
      expect(attempts).toEqual([event.id, event.id, event.id]);
      await sub.stop();
    } finally {
      await nc.close();
      await transport.deleteStreams();
      await transport.close();
    }
  });
});
