import { Sql } from '@routinely/db';
import { ManualClock } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertNotification, type NewNotification } from '../src/db/notifications-sql.js';
import { type Harness, sqlRows, startHarness } from './harness.js';

const clock = new ManualClock('2026-11-21T08:00:00.000Z');
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h?.close());

const notification = (overrides: Partial<NewNotification> = {}): NewNotification => ({
  id: uuidv7(),
  tenant_id: 't-notifications',
  user_id: 'u-notifications',
  kind: 'reminder',
  title: 'Reminder: write the report',
  body: 'Your task is coming up',
  data: { task_id: 'task-1' },
  delivery_id: null,
  created_at: clock.now(),
  ...overrides,
});

const stored = (column: 'id' | 'delivery_id', value: string) =>
  sqlRows<{ id: string; title: string }>(h.orm, `select id, title from notifications where ${column} = ?`, [value]);

describe('the one notifications writer', () => {
  it('writes in the transaction of the sql it is given: a rolled-back handler leaves no bell', async () => {
    const n = notification();
    await expect(
      Sql.of(h.orm).transaction(async (sql) => {
        await insertNotification(sql, n);
        throw new Error('handler failed after writing');
      }),
    ).rejects.toThrow('handler failed after writing');
    expect(await stored('id', n.id)).toEqual([]);

    await Sql.of(h.orm).transaction((sql) => insertNotification(sql, n));
    expect(await stored('id', n.id)).toEqual([{ id: n.id, title: n.title }]);
  });

  it('writes a redelivered event (same id) and a retried in-app delivery (same delivery_id) once', async () => {
    const event = notification();
    await insertNotification(Sql.of(h.orm), event);
    await insertNotification(Sql.of(h.orm), { ...event, title: 'a second copy' });
    expect(await stored('id', event.id)).toEqual([{ id: event.id, title: event.title }]);

    const deliveryId = uuidv7();
    const first = notification({ delivery_id: deliveryId });
    await insertNotification(Sql.of(h.orm), first);
    await insertNotification(Sql.of(h.orm), notification({ delivery_id: deliveryId, title: 'a retry' }));
    expect(await stored('delivery_id', deliveryId)).toEqual([{ id: first.id, title: first.title }]);
  });
});
