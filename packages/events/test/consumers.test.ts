import type { Orm } from '@routinely/db';
import { Sql } from '@routinely/db';
import { sqlRows } from '@routinely/testkit';
import { register } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authEvents,
  defineConsumer,
  type EventOf,
  InProcessTransport,
  makeEvent,
  replayDeadLetters,
  startConsumer,
  taskEvents,
} from '../src/index.js';
import { capturingLogger, count, openEventsDatabase, taskCreated, taskSnapshot } from './support.js';

let orm: Orm;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ orm, close } = await openEventsDatabase());
});
afterAll(() => close?.());

const policy = { ackWaitMs: 1_000, maxDeliver: 3, backoffMs: [5, 10] };

async function counterValue(name: string, consumer: string, type?: string): Promise<number> {
  const metric = register.getSingleMetric(name);
  const values = (await metric?.get())?.values ?? [];
  return values.find((v) => v.labels.consumer === consumer && (!type || v.labels.type === type))?.value ?? 0;
}

const DEAD_LETTERED = 'routinely_events_dead_lettered_total';

describe('typed consumers', () => {
  it('hands the handler catalog-parsed data, discriminated on type, and handles each event once', async () => {
    const transport = new InProcessTransport();
    const seen: string[] = [];
    const consumer = defineConsumer({
      durable: 'evt.typed',
      events: [taskEvents.taskCreated, authEvents.sessionRevoked],
      policy,
      handle: async (_sql, event) => {
        // Compiles only because `data` is typed by the catalog per `type`.
        if (event.type === 'task.task.created') seen.push(`task:${event.data.task.title}`);
        else seen.push(`revoked:${event.data.session_ids.length}`);
      },
    });
    const sub = await startConsumer(consumer, { db: Sql.of(orm), transport, logger: capturingLogger().logger });
    const created = taskCreated({ title: 'typed' });
    const revoked = makeEvent(
      authEvents.sessionRevoked,
      { tenantId: 't1', userId: 'u1', at: new Date() },
      { user_id: crypto.randomUUID(), session_ids: ['a', 'b'], reason: 'logout' },
    );
    const ignored = makeEvent(
      taskEvents.taskDeleted,
      { tenantId: 't1', userId: 'u1', at: new Date() },
      { task: taskSnapshot() },
    );
    for (const e of [created, revoked, ignored]) await transport.publish(e);
    for (const e of [created, revoked, ignored]) await transport.whenHandled(e.id);
    // A second process (fresh transport, same inbox) gets the same event again: the inbox absorbs it.
    const again = new InProcessTransport();
    const sub2 = await startConsumer(consumer, { db: Sql.of(orm), transport: again, logger: capturingLogger().logger });
    await again.publish(created);
    await again.whenHandled(created.id);
    expect(seen).toEqual(['task:typed', 'revoked:2']);
    expect(await count(orm, "inbox where consumer = 'evt.typed'")).toBe(2);
    await sub.stop();
    await sub2.stop();
  });

  it('takes a whole catalog', () => {
    const consumer = defineConsumer({ durable: 'evt.all', events: taskEvents, policy, handle: async () => {} });
    expect(consumer.events.map((e) => e.type)).toHaveLength(7);
    type Handled = EventOf<(typeof consumer.events)[number]>['type'];
    const deleted: Handled = 'task.task.deleted';
    expect(consumer.events.map((e) => e.type)).toContain(deleted);
  });

  it('rejects a policy JetStream could not take', () => {
    const bad = { ackWaitMs: 1_000, maxDeliver: 2, backoffMs: [1, 2] };
    expect(() =>
      defineConsumer({ durable: 'evt.bad', events: taskEvents, policy: bad, handle: async () => {} }),
    ).toThrow(/fewer entries than maxDeliver/);
  });
});

describe('dead letters', () => {
  it('stores a message after maxDeliver failed attempts, logs and counts it, and acks it so the next one flows', async () => {
    const transport = new InProcessTransport();
    const { logger, lines } = capturingLogger();
    const poison = taskCreated({ title: 'poison' });
    const fine = taskCreated({ title: 'fine' });
    let failing = true;
    const handled: string[] = [];
    const consumer = defineConsumer({
      durable: 'evt.dlq',
      events: [taskEvents.taskCreated],
      policy,
      handle: async (sql, event) => {
        await sql.run('select 1');
        if (failing && event.id === poison.id) throw new Error('reminder table locked');
        handled.push(event.data.task.title);
      },
    });
    const deadBefore = await counterValue(DEAD_LETTERED, 'evt.dlq', 'task.task.created');
    const redeliveredBefore = await counterValue('routinely_event_redeliveries_total', 'evt.dlq');
    const sub = await startConsumer(consumer, { db: Sql.of(orm), transport, logger });
    await transport.publish(poison);
    await transport.publish(fine);
    await transport.whenHandled(poison.id);
    await transport.whenHandled(fine.id);
    expect(handled).toEqual(['fine']);
    const letters = await sqlRows(orm, "select * from event_dead_letter where consumer = 'evt.dlq'");
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      event_id: poison.id,
      subject: 'task.task.created',
      error: 'reminder table locked',
      attempts: 3,
      payload: { id: poison.id, data: { task: { title: 'poison' } } },
    });
    expect(await count(orm, 'inbox where event_id = ?', [poison.id])).toBe(0);
    expect(await counterValue(DEAD_LETTERED, 'evt.dlq', 'task.task.created')).toBe(deadBefore + 1);
    expect(await counterValue('routinely_event_redeliveries_total', 'evt.dlq')).toBe(redeliveredBefore + 2);
    const logged = lines().filter((l) => l.msg === 'event dead-lettered');
    expect(logged).toEqual([
      expect.objectContaining({
        level: 50,
        event: poison.id,
        type: 'task.task.created',
        consumer: 'evt.dlq',
        error: 'reminder table locked',
        error_class: 'Error',
      }),
    ]);
    expect(JSON.stringify(logged)).not.toContain('poison');

    // Replay: the cause is fixed; the handler runs once through the inbox and the letter is deleted.
    failing = false;
    const result = await replayDeadLetters(Sql.of(orm), consumer);
    expect(result).toEqual({ replayed: [letters[0]?.id], failed: [] });
    expect(handled).toEqual(['fine', 'poison']);
    expect(await count(orm, "event_dead_letter where consumer = 'evt.dlq'")).toBe(0);
    expect(await count(orm, 'inbox where event_id = ?', [poison.id])).toBe(1);
    await sub.stop();
  });

  it('logs and stores a failed statement by its class and SQLSTATE, never the statement or its bind values', async () => {
    const transport = new InProcessTransport();
    const { logger, lines } = capturingLogger();
    const event = taskCreated({ title: 'statement' });
    const consumer = defineConsumer({
      durable: 'evt.dlq-sql',
      events: [taskEvents.taskCreated],
      policy,
      handle: async (sql) => {
        // A statement that fails with its bind value quoted in PostgreSQL's reason, on a table that does not exist.
        await sql.run('insert into no_such_table (secret_column) values (?)', ['s3cret-bind-value']);
      },
    });
    const sub = await startConsumer(consumer, { db: Sql.of(orm), transport, logger });
    await transport.publish(event);
    await transport.whenHandled(event.id);
    const logged = lines().filter((l) => l.msg === 'event dead-lettered');
    expect(logged).toEqual([
      expect.objectContaining({
        consumer: 'evt.dlq-sql',
        type: 'task.task.created',
        error_class: 'DatabaseError',
        error_code: '42P01',
        error: 'DatabaseError (SQLSTATE 42P01)',
      }),
    ]);
    const letters = (await sqlRows(orm, "select error from event_dead_letter where consumer = 'evt.dlq-sql'")) as {
      error: string;
    }[];
    expect(letters).toEqual([{ error: 'DatabaseError (SQLSTATE 42P01)' }]);
    for (const text of [JSON.stringify(logged), JSON.stringify(letters)]) {
      expect(text).not.toMatch(/insert into|no_such_table|secret_column|s3cret-bind-value/i);
    }
    expect(await counterValue(DEAD_LETTERED, 'evt.dlq-sql', 'task.task.created')).toBe(1);
    await sub.stop();
  });

  it('dead-letters data that fails the catalog schema at once, and replay keeps a letter that still fails', async () => {
    const transport = new InProcessTransport();
    const handled: string[] = [];
    const consumer = defineConsumer({
      durable: 'evt.schema',
      events: [taskEvents.taskCreated],
      policy,
      handle: async (_sql, event) => void handled.push(event.id),
    });
    const sub = await startConsumer(consumer, { db: Sql.of(orm), transport, logger: capturingLogger().logger });
    const good = taskCreated();
    const bad = { ...taskCreated(), data: { task: { id: 'not-a-uuid' } } };
    await transport.publish(bad);
    await transport.publish(good);
    await transport.whenHandled(bad.id);
    await transport.whenHandled(good.id);
    expect(handled).toEqual([good.id]);
    const [letter] = await sqlRows<{ id: string; attempts: number; error: string }>(
      orm,
      "select id, attempts, error from event_dead_letter where consumer = 'evt.schema'",
    );
    expect(letter).toMatchObject({ attempts: 1, error: expect.stringContaining('data fails task.task.created') });
    const replay = await replayDeadLetters(Sql.of(orm), consumer, { ids: [letter?.id as string] });
    expect(replay.replayed).toEqual([]);
    expect(replay.failed).toEqual([{ id: letter?.id, error: expect.stringContaining('data fails') }]);
    expect(await count(orm, "event_dead_letter where consumer = 'evt.schema' and attempts = 2")).toBe(1);
    await sub.stop();
  });
});
