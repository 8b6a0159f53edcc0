import type { Orm } from '@routinely/db';
import { Sql } from '@routinely/db';
import { quietLogger, requireEnv, sqlRows, uniqueName } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defineConsumer,
  deliverBurst,
  type EventTransport,
  JetStreamTransport,
  OutboxRelay,
  startConsumer,
  taskEvents,
} from '../src/index.js';
import { commitEvents, count, delivery, openEventsDatabase, taskCreated, writeRow } from './support.js';

// The relay publishes a claimed batch pipelined and consumers record a burst's inbox rows at once;
// neither may lose an event, publish or handle one twice, or retire a row the transport did not confirm.
const logger = quietLogger();
let orm: Orm;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ orm, close } = await openEventsDatabase());
});
afterAll(() => close?.());

const policy = { ackWaitMs: 5_000, maxDeliver: 3, backoffMs: [50, 100] };

describe('relay batches over JetStream', () => {
  it('retires only the rows whose events the transport stored when one publish of a pass fails, then publishes the rest', async () => {
    const transport = await JetStreamTransport.connect(requireEnv('NATS_URL'), logger, uniqueName('batch'));
    try {
      // Three rows: one event, a run of two written by one transaction, one event.
      const [alone, first, second, last] = [taskCreated(), taskCreated(), taskCreated(), taskCreated()];
      await commitEvents(orm, [alone]);
      await commitEvents(orm, [first, second]);
      await commitEvents(orm, [last]);
      const refused = second.id;
      // The second event of the run is refused (never sent); the other three reach the stream.
      const flaky: EventTransport = {
        publish: (e) => transport.publish(e),
        publishMany: async (envelopes) => {
          const stored = await transport.publishMany(envelopes.filter((e) => e.id !== refused));
          let next = 0;
          return envelopes.map((e) =>
            e.id === refused
              ? { status: 'rejected', reason: new Error('publish refused') }
              : (stored[next++] as PromiseSettledResult<void>),
          );
        },
        subscribe: transport.subscribe.bind(transport),
        close: async () => {},
      };
      await expect(new OutboxRelay({ db: Sql.of(orm), transport: flaky, logger }).publishBatch()).rejects.toThrow(
        'publish refused',
      );
      const unpublished = await sqlRows<{ id: string; claimed_until: Date | null }>(
        orm,
        'select id, claimed_until from outbox where published_at is null',
      );
      // The run's row is released at once (not held until the lease ends) so the next pass retries it.
      expect(unpublished).toEqual([{ id: first.id, claimed_until: null }]);
      expect(await transport.storedCount('task.task.created')).toBe(3);
      const relay = new OutboxRelay({ db: Sql.of(orm), transport, logger });
      // Both events of the row go again: the stream keeps the one it had once.
      expect(await relay.publishBatch()).toBe(2);
      expect(await count(orm, 'outbox where published_at is null')).toBe(0);
      expect(await transport.storedCount('task.task.created')).toBe(4);
    } finally {
      await transport.deleteStreams();
      await transport.close();
    }
  });

  it('publishes a batch of 100 in one pass, stored once each and in id order, and a burst handles each once', async () => {
    const transport = await JetStreamTransport.connect(requireEnv('NATS_URL'), logger, uniqueName('batch'));
    try {
      const handled: string[] = [];
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => (release = resolve));
      const consumer = defineConsumer({
        durable: 'test-burst',
        events: [taskEvents.taskCreated],
        policy,
        handle: async (_sql, event) => {
          // The first delivery waits until everything is stored, so the rest arrive as bursts.
          if (handled.length === 0) await gate;
          handled.push(event.id);
        },
      });
      const sub = await startConsumer(consumer, { db: Sql.of(orm), transport, logger });
      const events = Array.from({ length: 100 }, () => taskCreated());
      await commitEvents(orm, events);
      const relay = new OutboxRelay({ db: Sql.of(orm), transport, logger });
      expect(await relay.publishBatch()).toBe(100);
      expect(await count(orm, 'outbox where published_at is null')).toBe(0);
      // A relay that crashed before retiring would publish the same rows again: the stream keeps one of each.
      await transport.publishMany(events);
      expect(await transport.storedCount('task.task.created')).toBe(100);
      release();
      await expect.poll(() => handled.length, { timeout: 15_000 }).toBe(100);
      const ids = events.map((e) => e.id).sort();
      expect(handled).toEqual(ids);
      // A handler runs inside its burst's transaction: the last burst's inbox rows commit after it returned.
      await expect.poll(() => count(orm, "inbox where consumer = 'test-burst'")).toBe(100);
      await sub.stop();
    } finally {
      await transport.deleteStreams();
      await transport.close();
    }
  });
});

describe('consumer bursts', () => {
  it('skips a message redelivered after its burst committed, and handles a duplicate within a burst once', async () => {
    const handled: string[] = [];
    const consumer = defineConsumer({
      durable: 'test-burst-dedupe',
      events: [taskEvents.taskCreated],
      policy,
      handle: async (_sql, event) => void handled.push(event.id),
    });
    const deps = { db: Sql.of(orm), transport: undefined as never, logger };
    const [a, b, c] = [taskCreated(), taskCreated(), taskCreated()];
    expect(await deliverBurst(consumer, deps, [delivery(a), delivery(b)])).toEqual([undefined, undefined]);
    // b again (its ack was lost), c twice (redelivered while still queued): all acked, c handled once.
    expect(await deliverBurst(consumer, deps, [delivery(b, 2), delivery(c), delivery(c, 2)])).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(handled).toEqual([a.id, b.id, c.id]);
    expect(await count(orm, "inbox where consumer = 'test-burst-dedupe'")).toBe(3);
  });

  it('retries only the failing event of a burst; the others commit their inbox rows and are acked', async () => {
    const consumer = defineConsumer({
      durable: 'test-burst-failure',
      events: [taskEvents.taskCreated],
      policy,
      handle: async (sql, event) => {
        if (event.data.task.title === 'fails') throw new Error('handler failed');
        // A row written by the handler commits with the inbox row, or not at all.
        await writeRow(sql, event.id, 'handler-row');
      },
    });
    const deps = { db: Sql.of(orm), transport: undefined as never, logger };
    const [ok1, bad, ok2] = [taskCreated(), taskCreated({ title: 'fails' }), taskCreated()];
    const outcomes = await deliverBurst(
      consumer,
      deps,
      [ok1, bad, ok2].map((payload) => delivery(payload)),
    );
    expect(outcomes[0]).toBeUndefined();
    expect(outcomes[1]).toBeInstanceOf(Error);
    expect(outcomes[2]).toBeUndefined();
    const inbox = await sqlRows<{ event_id: string }>(
      orm,
      "select event_id from inbox where consumer = 'test-burst-failure'",
    );
    expect(new Set(inbox.map((r) => r.event_id))).toEqual(new Set([ok1.id, ok2.id]));
    // Each successful handler's row exists once: the failed burst transaction left nothing behind.
    expect(await count(orm, "event_dead_letter where consumer = 'handler-row'")).toBe(2);
    // The failing event's last attempt is dead-lettered and acked, like a single delivery.
    expect(
      await deliverBurst(consumer, deps, [
        { subject: bad.type, attempt: 3, payload: bad },
        { subject: ok1.type, attempt: 2, payload: ok1 },
      ]),
    ).toEqual([undefined, undefined]);
    expect(await count(orm, "event_dead_letter where consumer = 'test-burst-failure'")).toBe(1);
    expect(await count(orm, "event_dead_letter where consumer = 'handler-row'")).toBe(2);
  });
});
