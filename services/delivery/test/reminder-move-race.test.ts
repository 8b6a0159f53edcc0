import { column, row, Sql } from '@routinely/db';
import { makeEvent, type TaskSnapshot, taskEvents } from '@routinely/events';
import { ManualClock } from '@routinely/platform';
import { gate } from '@routinely/testkit';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { claimDueReminders } from '../src/db/claim-sql.js';
import { recordFiring } from '../src/db/deliveries-sql.js';
import { tasksReminders } from '../src/db/reminders-sql.js';
import { WAKEUP_CHANNEL } from '../src/db/wakeups-sql.js';
import { applyTaskEvents, type TaskEvent } from '../src/domain/reminders.js';
import { type Harness, startHarness, taskFor } from './harness.js';

// A fault-tier run lost a reminder: a slot moved while the old slot's reminder was firing (PostgreSQL had just
// come back, so the firer and the consumer worked through their backlogs at once). The move read the reminder
// before the firing committed and wrote only the new time, so the reminder stayed `fired` and never fired for
// the new slot.
const clock = new ManualClock('2026-11-21T08:00:00.000Z');
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h?.close());

const at = (minutes: number) => new Date(clock.now().getTime() + minutes * 60_000);
const scheduled = (task: TaskSnapshot): TaskEvent =>
  makeEvent(
    taskEvents.taskScheduled,
    { tenantId: task.tenant_id, userId: task.user_id, at: clock.now() },
    {
      task,
    },
  ) as TaskEvent;
const waitingOnLocks = async (db: Sql) =>
  (
    await db.rows(
      row({ n: column.integer }),
      "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
    )
  )[0]?.n ?? 0;

it('a move applied while the old slot is firing arms the reminder again for the new slot', async () => {
  const db = Sql.of(h.orm);
  // Due at +20 min: the service's own firer (at the clock's time) leaves it to this test's firing at +25.
  const task = taskFor(h.tokens.user(), {
    chosen_slot_start: at(30).toISOString(),
    chosen_slot_end: at(60).toISOString(),
    reminder_offset_min: 10,
    updated_at: clock.now().toISOString(),
  });
  await db.transaction((sql) => applyTaskEvents(sql, [scheduled(task)], clock));

  // The firer's transaction has claimed the reminder and marked it fired, and has not committed yet.
  const held = gate();
  const marked = gate();
  const firing = db.transaction(async (sql) => {
    const due = await claimDueReminders(sql, at(25), 10);
    expect(due.map((r) => r.task.id)).toEqual([task.id]);
    await recordFiring(
      sql,
      due.map((r) => r.id),
      [],
      at(25),
      WAKEUP_CHANNEL,
    );
    marked.open();
    await held.passed;
  });
  await marked.passed;
  const moved = {
    ...task,
    version: 2,
    chosen_slot_start: at(90).toISOString(),
    chosen_slot_end: at(120).toISOString(),
    updated_at: at(1).toISOString(),
  };
  const applying = db.transaction((sql) => applyTaskEvents(sql, [scheduled(moved)], clock));
  await vi.waitFor(async () => expect(await waitingOnLocks(db)).toBe(1), { timeout: 10_000, interval: 20 });
  held.open();
  await firing;
  await applying;
  const [reminder] = await tasksReminders(db, [task.id]);
  expect(reminder).toMatchObject({ status: 'scheduled', firedAt: null, remindAt: at(80), taskVersion: 2 });
});
