import type { Orm } from '@routinely/db';
import { Sql } from '@routinely/db';
import { quietLogger } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineConsumer, deliverBurst, deliverToConsumer, taskEvents } from '../src/index.js';
import { count, delivery, openEventsDatabase, taskCreated, writeRow } from './support.js';

// `afterCommit` replaces the timers that woke a worker "after commit" by guessing: it runs once the handler's
// transaction committed (another connection already sees its rows), not when the handler answered false, and
// not for a redelivery the inbox skipped.
const logger = quietLogger();
let orm: Orm;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ orm, close } = await openEventsDatabase());
});
afterAll(() => close?.());

const policy = { ackWaitMs: 5_000, maxDeliver: 3, backoffMs: [50, 100] };

/** A consumer writing one row per event (none for a task titled 'nothing'), and what its afterCommit saw. */
function recordingConsumer(durable: string, burst: boolean) {
  const seen: Promise<number>[] = [];
  const rows = `event_dead_letter where consumer = '${durable}-row'`;
  const consumer = defineConsumer({
    durable,
    events: [taskEvents.taskCreated],
    policy,
    handle: async (sql, event) => {
      if (event.data.task.title === 'nothing') return false;
      await writeRow(sql, event.id, `${durable}-row`);
    },
    handleBurst: burst
      ? async (sql, events) => {
          const changing = events.filter((e) => e.data.task.title !== 'nothing');
          for (const event of changing) await writeRow(sql, event.id, `${durable}-row`);
          return changing.length > 0;
        }
      : undefined,
    // Counted on another connection: the rows are there only if the transaction already committed.
    afterCommit: () => void seen.push(count(orm, rows)),
  });
  return { consumer, seen, rows };
}

describe('afterCommit', () => {
  it('runs after each committed handling, not for a handler that changed nothing or a redelivery', async () => {
    const { consumer, seen } = recordingConsumer('test-after-commit', false);
    const deps = { db: Sql.of(orm), transport: undefined as never, logger };
    const [a, b, quiet] = [taskCreated(), taskCreated(), taskCreated({ title: 'nothing' })];
    await deliverToConsumer(consumer, deps, delivery(a));
    await deliverToConsumer(consumer, deps, delivery(a, 2));
    await deliverToConsumer(consumer, deps, delivery(quiet));
    await deliverToConsumer(consumer, deps, delivery(b));
    expect(await Promise.all(seen)).toEqual([1, 2]);
  });

  it('runs once per committed burst, and not for a burst that changed nothing', async () => {
    const { consumer, seen, rows } = recordingConsumer('test-after-commit-burst', true);
    const deps = { db: Sql.of(orm), transport: undefined as never, logger };
    const [a, b] = [taskCreated(), taskCreated()];
    const [q1, q2] = [taskCreated({ title: 'nothing' }), taskCreated({ title: 'nothing' })];
    await deliverBurst(consumer, deps, [delivery(a), delivery(b)]);
    await deliverBurst(consumer, deps, [delivery(q1), delivery(q2)]);
    await deliverBurst(consumer, deps, [delivery(a, 2), delivery(b, 2)]);
    expect(await Promise.all(seen)).toEqual([2]);
    expect(await count(orm, rows)).toBe(2);
  });
});
