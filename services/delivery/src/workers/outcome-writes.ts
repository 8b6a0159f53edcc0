import type { Sql } from '@routinely/db';
import { v7 as uuidv7 } from 'uuid';
import type { ClaimedDelivery } from '../db/claim-sql.js';
import { insertDeadLetter } from '../db/dead-letters-sql.js';
import { hasEmailDelivery, insertDeliveries } from '../db/deliveries-sql.js';
import { countEndpointFailure } from '../db/endpoints-sql.js';
import { insertNotification } from '../db/notifications-sql.js';
import { type CircuitPolicy, circuitLimits, circuitOpenedNotice } from '../domain/circuit.js';
import { deadLetterReason, type FailedAttempt } from '../domain/outcome.js';
import { DEFAULT_MAX_ATTEMPTS } from '../domain/retry-policy.js';
import { deliveryRow } from './reminder-firer.js';

// What recording a try writes besides the delivery row and its attempts-log row, in the same transaction.

export async function deadLetter(sql: Sql, d: ClaimedDelivery, result: FailedAttempt, tries: number, now: Date) {
  await insertDeadLetter(sql, {
    id: uuidv7(),
    tenant_id: d.tenant_id,
    user_id: d.user_id,
    delivery_id: d.id,
    reminder_id: d.reminder_id,
    endpoint_id: d.endpoint_id,
    channel: d.channel,
    reason: deadLetterReason(result),
    last_status_code: result.statusCode,
    attempts: tries,
    created_at: now,
  });
}

/** ADR 041: a dead webhook delivery of an endpoint with fallback_to_email becomes an email delivery. */
export async function fallBackToEmail(sql: Sql, d: ClaimedDelivery, now: Date) {
  if (await hasEmailDelivery(sql, d.reminder_id)) return; // the owner already gets (or got) this reminder by email
  const email = { tenantId: d.tenant_id, userId: d.user_id, reminderId: d.reminder_id, endpointId: null };
  // Email is another target, so it is its own event (a fresh event_id).
  const payloadOf = (id: string, eventId: string) => ({ ...d.payload, delivery_id: id, event_id: eventId });
  await insertDeliveries(sql, [deliveryRow({ ...email, channel: 'email' }, payloadOf, DEFAULT_MAX_ATTEMPTS, now)]);
}

export async function writeNotification(sql: Sql, d: ClaimedDelivery, now: Date) {
  const task = (d.payload.task ?? {}) as Record<string, unknown>;
  await insertNotification(sql, {
    id: uuidv7(),
    tenant_id: d.tenant_id,
    user_id: d.user_id,
    kind: 'reminder',
    title: `Reminder: ${String(task.title ?? 'task')}`,
    body: task.chosen_slot_start ? `Starts at ${String(task.chosen_slot_start)}` : 'Your task is coming up',
    data: { task_id: task.id, reminder_id: d.reminder_id, delivery_id: d.id, task },
    delivery_id: d.id,
    created_at: now,
  });
}

/** Counts a failed try of an endpoint against its circuit (domain/circuit.ts); notifies the owner when it opens. */
export async function recordEndpointFailure(sql: Sql, endpointId: string, now: Date, policy: CircuitPolicy) {
  const endpoint = await countEndpointFailure(sql, endpointId, now, circuitLimits(policy));
  const notice = endpoint && circuitOpenedNotice(endpointId, endpoint, policy, now);
  if (notice) await insertNotification(sql, notice);
}
