import { Sql } from '@routinely/db';
import { ManualClock } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countEndpointFailure, insertEndpoint, ownerEndpoint, writeEndpointChange } from '../src/db/endpoints-sql.js';
import type { ReminderRow, WebhookEndpointRow } from '../src/db/entities.js';
import { insertReminders, tasksReminders, writeReminderChanges } from '../src/db/reminders-sql.js';
import { type Harness, sqlRows, startHarness } from './harness.js';

// A row read without a lock may be changed by a worker before the write that follows: the write names only
// the columns it changed, so the worker's column keeps its value (as the unit of work's update did).
const clock = new ManualClock('2026-11-21T08:00:00.000Z');
const owner = { tenantId: 'tenant-cc', userId: 'user-cc' };
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h?.close());

describe('writes of rows read earlier', () => {
  it("an endpoint's rename keeps the failures the worker counted meanwhile", async () => {
    const sql = Sql.of(h.orm);
    const now = clock.now();
    const row: WebhookEndpointRow = {
      id: uuidv7(),
      ...owner,
      name: 'before',
      url: 'https://example.test/hook',
      description: null,
      enabled: true,
      maxAttempts: 4,
      fallbackToEmail: false,
      secretSealed: 'sealed',
      secretPreview: 'whsec_…',
      consecutiveFailures: 0,
      circuitOpenUntil: null,
      events: ['reminder.fired'],
      createdAt: now,
      updatedAt: now,
    };
    await insertEndpoint(sql, row);
    const asRead = await ownerEndpoint(sql, owner, row.id);
    expect(asRead).toEqual(row);
    if (!asRead) return;
    await countEndpointFailure(sql, row.id, now, { threshold: 5, openMs: 1000, maxOpenMs: 10_000 });
    const later = new Date(now.getTime() + 1000);
    const written = await writeEndpointChange(sql, asRead, { name: 'after', enabled: true, updatedAt: later });
    expect(written).toMatchObject({ name: 'after', updatedAt: later });
    expect(await ownerEndpoint(sql, owner, row.id)).toMatchObject({
      name: 'after',
      consecutiveFailures: 1,
      events: ['reminder.fired'],
      updatedAt: later,
    });
  });

  it('a reminder the firer marked fired stays fired when a task event changes its copy of the task', async () => {
    const sql = Sql.of(h.orm);
    const now = clock.now();
    const taskId = uuidv7();
    const reminder: ReminderRow = {
      id: uuidv7(),
      ...owner,
      taskId,
      task: { id: taskId, title: 'water the plants' },
      taskUpdatedAt: now,
      taskVersion: 1,
      channels: ['inapp'],
      remindAt: now,
      status: 'scheduled',
      reminderSetAt: now,
      firedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await insertReminders(sql, [reminder]);
    const [asRead] = await tasksReminders(sql, [taskId]);
    expect(asRead).toEqual(reminder);
    if (!asRead) return;
    await sqlRows(h.orm, `update reminders set status = 'fired', fired_at = ? where id = ?`, [now, reminder.id]);
    const later = new Date(now.getTime() + 1000);
    const after = { ...asRead, task: { id: taskId, title: 'water the roses' }, taskVersion: 2, updatedAt: later };
    await writeReminderChanges(sql, [{ before: asRead, after }]);
    const [stored] = await tasksReminders(sql, [taskId]);
    expect(stored).toMatchObject({ status: 'fired', firedAt: now, taskVersion: 2, updatedAt: later });
    expect(stored?.task).toEqual({ id: taskId, title: 'water the roses' });
  });
});
