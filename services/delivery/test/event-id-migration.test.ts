import { openOrm } from '@routinely/db';
import { createTestDatabase } from '@routinely/testkit';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, expect, it } from 'vitest';
import { dbConfig } from '../src/db/config.js';
import { sqlRows } from './harness.js';

const dbs: Awaited<ReturnType<typeof createTestDatabase>>[] = [];
afterAll(async () => {
  for (const db of dbs) await db.drop();
});

const reminderId = uuidv7();
const [hookA, hookB] = [uuidv7(), uuidv7()];

function deliveryValues(id: string, channel: string, endpointId: string | null, occurredAt: string) {
  const payload = JSON.stringify({ event: 'reminder.fired', delivery_id: id, occurred_at: occurredAt });
  return [id, reminderId, endpointId, channel, payload];
}

it('gives deliveries made before event ids one event id per firing and target, requeues included', async () => {
  const db = await createTestDatabase();
  dbs.push(db);
  // Every migration before the one that gives deliveries their event ids.
  const eventIds = dbConfig.migrations.findIndex((m) => m.name === 'Migration20261124041630');
  const before = await openOrm(db.url, { ...dbConfig, migrations: dbConfig.migrations.slice(0, eventIds) });
  const first = '2026-11-21T08:00:00.000Z';
  const later = '2026-11-22T08:00:00.000Z';
  // In id order: a dead delivery to hook A and, later, its requeue; hook B and in-app of the same firing;
  // then the reminder fires again (moved slot) to hook A.
  const ids = Array.from({ length: 5 }, () => uuidv7());
  const rows = [
    deliveryValues(String(ids[0]), 'webhook', hookA, first),
    deliveryValues(String(ids[1]), 'webhook', hookB, first),
    deliveryValues(String(ids[2]), 'inapp', null, first),
    deliveryValues(String(ids[3]), 'webhook', hookA, first),
    deliveryValues(String(ids[4]), 'webhook', hookA, later),
  ];
  for (const values of rows) {
    await sqlRows(
      before,
      `insert into deliveries (id, tenant_id, user_id, reminder_id, endpoint_id, channel, event, payload, status,
         attempts, max_attempts, created_at, updated_at)
       values (?, 't', 'u', ?, ?, ?, 'reminder.fired', ?::jsonb, 'pending', 0, 4, now(), now())`,
      values,
    );
  }
  await before.close();

  const after = await openOrm(db.url, dbConfig);
  const migrated = await sqlRows<{ id: string; event_id: string; payload_event_id: string }>(
    after,
    `select id, event_id, payload->>'event_id' as payload_event_id from deliveries order by id`,
  );
  await after.close();
  expect(migrated.map((r) => r.event_id)).toEqual([ids[0], ids[1], ids[2], ids[0], ids[4]]);
  for (const row of migrated) expect(row.payload_event_id).toBe(row.event_id);
});
