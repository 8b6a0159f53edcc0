import type { Orm } from '@routinely/db';
import { Sql } from '@routinely/db';
import { quietLogger } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineConsumer, deliverBurst, taskEvents } from '../src/index.js';
import { count, delivery, openEventsDatabase, taskCreated, writeRow } from './support.js';

// A consumer may handle the new events of a burst at once (`handleBurst`, e.g. one lookup for all).
// It gets each new event once, in order, inside the burst's transaction; a failing burst falls back to
// `handle` one by one, so only the failing event is retried.
const logger = quietLogger();
let orm: Orm;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ orm, close } = await openEventsDatabase());
});
afterAll(() => close?.());

const policy = { ackWaitMs: 5_000, maxDeliver: 3, backoffMs: [50, 100] };
describe('burst handlers', () => {
  it('get the new events of a burst once, in order, each step in its span; a redelivery runs nothing', async () => {
    const bursts: string[][] = [];
    const singles: string[] = [];
    const stepped: string[] = [];
    const consumer = defineConsumer({
      durable: 'test-burst-handler',
      events: [taskEvents.taskCreated],
      policy,
      handle: async (_sql, event) => void singles.push(event.id),
      handleBurst: async (sql, events, inEventSpan) => {
        bursts.push(events.map((e) => e.id));
        for (const event of events) await inEventSpan(event, async () => void stepped.push(event.id));
        for (const event of events) await writeRow(sql, event.id, 'burst-row');
      },
    });
    const deps = { db: Sql.of(orm), transport: undefined as never, logger };
    const [a, b, c] = [taskCreated(), taskCreated(), taskCreated()];
    expect(await deliverBurst(consumer, deps, [delivery(a), delivery(b)])).toEqual([undefined, undefined]);
    // b redelivered (its ack was lost) and c twice: only c is new, and it is handled once.
    expect(await deliverBurst(consumer, deps, [delivery(b, 2), delivery(c), delivery(c, 2)])).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(await deliverBurst(consumer, deps, [delivery(a, 2), delivery(c, 3)])).toEqual([undefined, undefined]);
    expect(bursts).toEqual([[a.id, b.id], [c.id]]);
    expect(stepped).toEqual([a.id, b.id, c.id]);
    expect(singles).toEqual([]);
    expect(await count(orm, "inbox where consumer = 'test-burst-handler'")).toBe(3);
    expect(await count(orm, "event_dead_letter where consumer = 'burst-row'")).toBe(3);
  });

  it('fall back to one by one when they fail: nothing of the burst stays, only the failing event is retried', async () => {
    const consumer = defineConsumer({
      durable: 'test-burst-handler-failure',
      events: [taskEvents.taskCreated],
      policy,
      handle: async (sql, event) => {
        if (event.data.task.title === 'fails') throw new Error('handler failed');
        await writeRow(sql, event.id, 'single-row');
      },
      handleBurst: async (sql, events) => {
        for (const event of events) await writeRow(sql, event.id, 'burst-row-failed');
        if (events.some((e) => e.data.task.title === 'fails')) throw new Error('burst failed');
      },
    });
    const deps = { db: Sql.of(orm), transport: undefined as never, logger };
    const [ok1, bad, ok2] = [taskCreated(), taskCreated({ title: 'fails' }), taskCreated()];
    const outcomes = await deliverBurst(consumer, deps, [delivery(ok1), delivery(bad), delivery(ok2)]);
    expect(outcomes[0]).toBeUndefined();
    expect(outcomes[1]).toBeInstanceOf(Error);
    expect(outcomes[2]).toBeUndefined();
    expect(await count(orm, "event_dead_letter where consumer = 'burst-row-failed'")).toBe(0);
    expect(await count(orm, "event_dead_letter where consumer = 'single-row'")).toBe(2);
    expect(await count(orm, "inbox where consumer = 'test-burst-handler-failure'")).toBe(2);
  });
});
