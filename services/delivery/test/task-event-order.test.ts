import { JetStreamTransport, makeEvent, type TaskSnapshot, taskEvents } from '@routinely/events';
import { ManualClock } from '@routinely/platform';
import { quietLogger, requireEnv, uniqueName } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, sqlRows, startHarness, taskFor } from './harness.js';

// Real JetStream between the events and the service's durable consumer: the task service's relay may publish
// one task's events in any order (racing transactions, several relays), so the consumer must order them.
const clock = new ManualClock('2026-11-21T08:00:00.000Z');
let h: Harness;
let transport: JetStreamTransport;

beforeAll(async () => {
  transport = await JetStreamTransport.connect(requireEnv('NATS_URL'), quietLogger(), uniqueName('delivery_order'));
  h = await startHarness({ clock, transport });
});
afterAll(async () => {
  await h?.close();
  await transport?.deleteStreams();
  await transport?.close();
});

const at = (minutes: number) => new Date(clock.now().getTime() + minutes * 60_000).toISOString();

/** A task's history: versions 1..n, each a new slot; all stamped in one millisecond (as racing writes are). */
function history(base: TaskSnapshot, moves: number, ending: 'taskScheduled' | 'taskCompleted' | 'taskDeleted') {
  const events = Array.from({ length: moves }, (_, i) => {
    const task = { ...base, version: i + 1, chosen_slot_start: at(120 + 10 * i), chosen_slot_end: at(150 + 10 * i) };
    return makeEvent(
      taskEvents.taskScheduled,
      { tenantId: base.tenant_id, userId: base.user_id, at: clock.now() },
      { task },
    );
  });
  if (ending !== 'taskScheduled') {
    const last = events.at(-1)?.data.task ?? base;
    const task = { ...last, version: moves + 1, status: ending === 'taskCompleted' ? ('done' as const) : last.status };
    events.push(
      makeEvent(taskEvents[ending], { tenantId: base.tenant_id, userId: base.user_id, at: clock.now() }, { task }),
    );
  }
  return events;
}

describe('task events applied in version order', () => {
  it('out-of-order events of many tasks leave each reminder at the newest version, every time', async () => {
    const user = h.tokens.user();
    const endings = ['taskScheduled', 'taskCompleted', 'taskDeleted'] as const;
    const tasks = Array.from({ length: 12 }, (_, i) => ({
      task: taskFor(user, { reminder_offset_min: 15, updated_at: clock.now().toISOString() }),
      ending: endings[i % endings.length] ?? 'taskScheduled',
    }));
    const histories = tasks.map(({ task, ending }) => history(task, 6, ending));
    // The newest event of every task goes out first, the rest after it in a shuffled order.
    const newest = histories.map((events) => events.at(-1)).filter((event) => event !== undefined);
    const older = histories.flatMap((events) => events.slice(0, -1));
    for (let i = older.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [older[i], older[j]] = [older[j] as (typeof older)[number], older[i] as (typeof older)[number]];
    }
    for (const event of newest) await transport.publish(event);
    await Promise.all(older.map((event) => transport.publish(event)));
    const ids = histories.flat().map((event) => event.id);
    await expect
      .poll(
        async () =>
          (
            await sqlRows<{ n: string }>(
              h.orm,
              "select count(*) as n from inbox where consumer = 'delivery.reminders' and event_id::text = any(string_to_array(?, ','))",
              [ids.join(',')],
            )
          )[0]?.n,
        { timeout: 15_000, interval: 100 },
      )
      .toBe(String(ids.length));
    for (const [index, { task, ending }] of tasks.entries()) {
      const [reminder] = await sqlRows<{ remind_at: string; status: string; task_version: number }>(
        h.orm,
        'select remind_at, status, task_version from reminders where task_id = ?',
        [task.id],
      );
      // What the user sees first: the newest slot (+170 min) minus 15 minutes, or no reminder at all.
      const outcome = {
        status: reminder?.status,
        remind_at: ending === 'taskScheduled' ? new Date(reminder?.remind_at ?? 0).toISOString() : null,
      };
      expect(outcome, `task ${index}`).toEqual(
        ending === 'taskScheduled'
          ? { status: 'scheduled', remind_at: at(155) }
          : { status: 'cancelled', remind_at: null },
      );
      expect(reminder?.task_version, `task ${index}`).toBe(ending === 'taskScheduled' ? 6 : 7);
    }
  });
});
