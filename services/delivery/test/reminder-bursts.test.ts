import { Sql } from '@routinely/db';
import {
  deliverBurst,
  deliverToConsumer,
  type EventEnvelope,
  makeEvent,
  type TaskSnapshot,
  taskEvents,
} from '@routinely/events';
import { ManualClock } from '@routinely/platform';
import { quietLogger, type TestUser } from '@routinely/testkit';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryConsumers } from '../src/events/consumers.js';
import { type Harness, sqlRows, startHarness, taskFor } from './harness.js';

// Under load the reminders consumer takes a burst of task events at once (one lock statement and
// one lookup for all of them). A burst must leave exactly the reminders the same events leave one by one, and
// a redelivered burst must change nothing.
const clock = new ManualClock('2026-11-21T08:00:00.000Z');
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h?.close());

type Kind = keyof typeof taskEvents;
const inMinutes = (m: number) => new Date(clock.now().getTime() + m * 60_000).toISOString();

/**
 * A mixed history over five tasks, in the order the burst delivers it: creates without a slot, slots set and
 * moved, a version arriving after a newer one, a completion, a delete with no reminder before, a slot that
 * has already begun, and one event twice.
 */
function mixedHistory(user: TestUser) {
  const task = (overrides: Partial<TaskSnapshot>) => taskFor(user, { status: 'pending', ...overrides });
  const at = (t: TaskSnapshot, version: number, fields: Partial<TaskSnapshot>) => ({ ...t, ...fields, version });
  const slot = (start: number) => ({
    status: 'scheduled' as const,
    chosen_slot_start: inMinutes(start),
    chosen_slot_end: inMinutes(start + 30),
  });
  const [a, b, c, d, e] = [task({}), task({ reminder_channels: ['email'] }), task({}), task({}), task({})];
  const history: [Kind, TaskSnapshot][] = [
    ['taskCreated', at(a, 1, {})],
    ['taskScheduled', at(a, 2, slot(60))],
    ['taskCreated', at(b, 1, slot(90))],
    ['taskScheduled', at(a, 3, slot(120))],
    ['taskScheduled', at(c, 3, slot(200))],
    ['taskScheduled', at(c, 2, slot(100))], // older than the one before: ignored
    ['taskCompleted', at(b, 2, { ...slot(90), status: 'done' })],
    ['taskDeleted', at(d, 4, {})], // no reminder before: a cancelled row keeps the version
    ['taskScheduled', at(e, 2, slot(-5))], // the slot has begun: no reminder to fire, a cancelled row
  ];
  const events = history.map(([kind, snapshot]) =>
    makeEvent(taskEvents[kind], { tenantId: user.tenantId, userId: user.userId, at: clock.now() }, { task: snapshot }),
  );
  return { taskIds: [a, b, c, d, e].map((t) => t.id), events: [...events, events[1] as EventEnvelope] };
}

/** The reminders of `taskIds`, in that order, without their ids and timestamps of handling. */
async function remindersOf(taskIds: string[]) {
  type Row = { task_id: string; status: string; remind_at: string; task_version: number };
  const rows = await sqlRows<Row & Record<string, unknown>>(
    h.orm,
    `select task_id, status, remind_at, task_version, channels, task->>'title' as title, reminder_set_at, fired_at
     from reminders where task_id::text in (${taskIds.map(() => '?').join(', ')})`,
    taskIds,
  );
  return taskIds.map((id) => {
    const row = rows.find((r) => r.task_id === id);
    return row ? { ...row, task_id: taskIds.indexOf(id) } : null;
  });
}

/**
 * The reminders consumer, recording each call of its burst handler and what it threw: a failed burst falls
 * back to one by one silently, which would hide a broken burst handler from these tests.
 */
function remindersConsumer() {
  const consumer = deliveryConsumers({ clock, onReminderChanged: () => {} }).reminders;
  const calls: { events: number; error?: unknown }[] = [];
  const handleBurst = consumer.handleBurst;
  if (!handleBurst) throw new Error('the reminders consumer has no burst handler');
  const recorded: typeof consumer = {
    ...consumer,
    handleBurst: async (sql, events, inEventSpan) => {
      try {
        await handleBurst(sql, events, inEventSpan);
        calls.push({ events: events.length });
      } catch (error) {
        calls.push({ events: events.length, error });
        throw error;
      }
    },
  };
  return { consumer: recorded, calls };
}

const deliveries = (events: EventEnvelope[], attempt = 1) =>
  events.map((payload) => ({ subject: payload.type, attempt, payload }));

describe('reminders consumer bursts', () => {
  it('leaves the reminders one-by-one handling leaves, and a redelivered burst changes nothing', async () => {
    const { consumer, calls } = remindersConsumer();
    const deps = { db: Sql.of(h.orm), transport: h.transport, logger: quietLogger() };
    const user = h.tokens.user();

    const burst = mixedHistory(user);
    expect(await deliverBurst(consumer, deps, deliveries(burst.events))).toEqual(burst.events.map(() => undefined));
    expect(calls).toEqual([{ events: burst.events.length - 1 }]); // the duplicate runs once

    const oneByOne = mixedHistory(user);
    for (const delivery of deliveries(oneByOne.events)) await deliverToConsumer(consumer, deps, delivery);

    const fromBurst = await remindersOf(burst.taskIds);
    expect(fromBurst).toEqual(await remindersOf(oneByOne.taskIds));
    expect(fromBurst.map((r) => r && { status: r.status, version: r.task_version })).toEqual([
      { status: 'scheduled', version: 3 },
      { status: 'cancelled', version: 2 },
      { status: 'scheduled', version: 3 },
      { status: 'cancelled', version: 4 },
      { status: 'cancelled', version: 2 },
    ]);
    expect(new Date(String(fromBurst[0]?.remind_at)).toISOString()).toBe(inMinutes(110));

    // The same burst again (acks lost), later: every event is in the inbox, so nothing is applied twice.
    clock.advance(60_000);
    const before = await sqlRows(h.orm, 'select * from reminders order by id');
    expect(await deliverBurst(consumer, deps, deliveries(burst.events, 2))).toEqual(burst.events.map(() => undefined));
    expect(await sqlRows(h.orm, 'select * from reminders order by id')).toEqual(before);
    expect(calls).toHaveLength(1); // nothing new in the redelivered burst: its handler did not even run
    const handled = await sqlRows<{ n: number }>(
      h.orm,
      "select count(*)::int as n from inbox where consumer = 'delivery.reminders' and event_id::text in (" +
        burst.events.map(() => '?').join(', ') +
        ')',
      burst.events.map((event) => event.id),
    );
    expect(handled[0]?.n).toBe(burst.events.length - 1); // one event was in the burst twice
  });

  it('handles a burst whose events arrive newest first for many tasks, and keeps the newest of each', async () => {
    const { consumer, calls } = remindersConsumer();
    const deps = { db: Sql.of(h.orm), transport: h.transport, logger: quietLogger() };
    const user = h.tokens.user();
    const tasks = Array.from({ length: 20 }, () => taskFor(user, { id: uuidv7() }));
    const events = tasks.flatMap((task) =>
      [3, 1, 2].map((version) =>
        makeEvent(
          taskEvents.taskScheduled,
          { tenantId: user.tenantId, userId: user.userId, at: clock.now() },
          { task: { ...task, version, chosen_slot_start: inMinutes(60 * version), chosen_slot_end: inMinutes(300) } },
        ),
      ),
    );
    expect(await deliverBurst(consumer, deps, deliveries(events))).toEqual(events.map(() => undefined));
    expect(calls).toEqual([{ events: 60 }]);
    const rows = await remindersOf(tasks.map((t) => t.id));
    expect(rows.map((r) => r && [r.status, r.task_version])).toEqual(tasks.map(() => ['scheduled', 3]));
  });
});
