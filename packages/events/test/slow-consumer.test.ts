import type { Orm } from '@routinely/db';
import { Sql } from '@routinely/db';
import { quietLogger, sqlRun } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defineConsumer,
  type EventEnvelope,
  InProcessTransport,
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

describe('in-process delivery', () => {
  it("a consumer sleeping 2 s delays neither the producer's next 100 events nor another consumer", async () => {
    const transport = new InProcessTransport();
    const relay = new OutboxRelay({ db: Sql.of(orm), transport, logger });
    let slowAwake = false;
    const slowHandled: string[] = [];
    const slow = defineConsumer({
      durable: 'evt.slow',
      events: [taskEvents.taskCreated],
      policy: { ackWaitMs: 30_000, maxDeliver: 3, backoffMs: [10] },
      handle: async (_sql, event) => {
        if (slowHandled.length === 0) await new Promise((r) => setTimeout(r, 2_000));
        slowAwake = true;
        slowHandled.push(event.id);
      },
    });
    const fastHandled: string[] = [];
    const slowSub = await startConsumer(slow, { db: Sql.of(orm), transport, logger });
    const fastSub = await transport.subscribe(
      { durable: 'evt.fast', subjects: ['task.task.created'], policy: slow.policy },
      async ({ payload }) => void fastHandled.push((payload as EventEnvelope).id),
    );
    const first = taskCreated();
    await commitEvents(orm, [first]);
    expect(await relay.publishBatch()).toBe(1);
    const next = Array.from({ length: 100 }, () => taskCreated());
    await commitEvents(orm, next);
    // The relay hands all 100 over and the other consumer has them while the slow one still sleeps.
    expect(await relay.publishBatch()).toBe(100);
    await expect.poll(() => fastHandled.length).toBe(101);
    expect(slowAwake).toBe(false);
    expect(fastHandled).toEqual([first.id, ...next.map((e) => e.id)]);
    // Durability: no row is retired before every consumer has it; the relay does not claim them twice.
    expect(await count(orm, 'outbox where published_at is not null')).toBe(0);
    expect(await relay.publishBatch()).toBe(0);
    await relay.settled();
    expect(slowHandled).toEqual([first.id, ...next.map((e) => e.id)]);
    expect(await count(orm, 'outbox where published_at is null')).toBe(0);
    expect(await count(orm, "inbox where consumer = 'evt.slow'")).toBe(101);
    await slowSub.stop();
    await fastSub.stop();
  });

  it('publishes again what a consumer gave up on, after the lease, and the inbox keeps it handled once', async () => {
    const transport = new InProcessTransport();
    const relay = new OutboxRelay({ db: Sql.of(orm), transport, logger, leaseMs: 300 });
    let down = true;
    const handled: string[] = [];
    const consumer = defineConsumer({
      durable: 'evt.recovering',
      events: [taskEvents.taskCreated],
      policy: { ackWaitMs: 30_000, maxDeliver: 2, backoffMs: [10] },
      handle: async (_sql, event) => {
        if (down) throw new Error('database hiccup');
        handled.push(event.id);
      },
    });
    // A dead-letter write that fails too (its table is briefly gone) is the only way a consumer gives up.
    await sqlRun(orm, 'alter table event_dead_letter rename to event_dead_letter_away');
    const sub = await startConsumer(consumer, { db: Sql.of(orm), transport, logger });
    const event = taskCreated();
    await commitEvents(orm, [event]);
    try {
      expect(await relay.publishBatch()).toBe(1);
      await relay.settled();
      expect(await count(orm, 'outbox where id = ? and published_at is null', [event.id])).toBe(1);
    } finally {
      await sqlRun(orm, 'alter table event_dead_letter_away rename to event_dead_letter');
    }
    down = false;
    await expect.poll(() => relay.publishBatch(), { timeout: 10_000, interval: 100 }).toBe(1);
    await relay.settled();
    expect(handled).toEqual([event.id]);
    expect(await count(orm, 'outbox where id = ? and published_at is not null', [event.id])).toBe(1);
    await sub.stop();
  });
});
