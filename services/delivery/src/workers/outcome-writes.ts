import type { Knex } from '@mikro-orm/knex';
import { v7 as uuidv7 } from 'uuid';
import { insertDeliveries } from '../db/deliveries-sql.js';
import { DEFAULT_MAX_ATTEMPTS } from '../domain/retry-policy.js';
import type { ClaimedDelivery, FailedAttempt } from './attempt.js';
import { deliveryRow } from './reminder-firer.js';

// What recording a try writes besides the delivery row and its attempts-log row, in the same transaction.

export async function deadLetter(
  trx: Knex.Transaction,
  d: ClaimedDelivery,
  result: FailedAttempt,
  tries: number,
  now: Date,
) {
  const reason = result.retryable ? `retries exhausted: ${result.error}` : result.error;
  await trx('dead_letters').insert({
    id: uuidv7(),
    tenant_id: d.tenant_id,
    user_id: d.user_id,
    delivery_id: d.id,
    reminder_id: d.reminder_id,
    endpoint_id: d.endpoint_id,
    channel: d.channel,
    reason,
    last_status_code: result.statusCode,
    attempts: tries,
    created_at: now,
  });
}

/** ADR 041: a dead webhook delivery of an endpoint with fallback_to_email becomes an email delivery. */
export async function fallBackToEmail(trx: Knex.Transaction, d: ClaimedDelivery, now: Date) {
  const { rows } = await trx.raw<{ rows: unknown[] }>(
    `select 1 from deliveries where reminder_id = ? and channel = 'email' limit 1`,
    [d.reminder_id],
  );
  if (rows.length > 0) return; // the owner already gets (or got) this reminder by email
  const email = { tenantId: d.tenant_id, userId: d.user_id, reminderId: d.reminder_id, endpointId: null };
  // Email is another target, so it is its own event (a fresh event_id).
  const payloadOf = (id: string, eventId: string) => ({ ...d.payload, delivery_id: id, event_id: eventId });
  await insertDeliveries(trx, [deliveryRow({ ...email, channel: 'email' }, payloadOf, DEFAULT_MAX_ATTEMPTS, now)]);
}

export async function writeNotification(trx: Knex.Transaction, d: ClaimedDelivery, now: Date) {
  const task = (d.payload.task ?? {}) as Record<string, unknown>;
  await trx.raw(
    `insert into notifications (id, tenant_id, user_id, kind, title, body, data, delivery_id, read_at, created_at)
     values (?, ?, ?, 'reminder', ?, ?, ?, ?, null, ?) on conflict (delivery_id) do nothing`,
    [
      uuidv7(),
      d.tenant_id,
      d.user_id,
      `Reminder: ${String(task.title ?? 'task')}`,
      task.chosen_slot_start ? `Starts at ${String(task.chosen_slot_start)}` : 'Your task is coming up',
      JSON.stringify({ task_id: task.id, reminder_id: d.reminder_id, delivery_id: d.id, task }),
      d.id,
      now,
    ],
  );
}
