import { nameSchemas, pageQuery, timestampOut, uuidOut } from '@routinely/platform';
import { z } from 'zod';
import { iso } from '../../domain/context.js';
import type { DeadLetterRecord, DeliveryRecord } from '../../domain/delivery-log.js';
import { CHANNELS, DELIVERY_STATUSES } from '../../domain/values.js';
import { attemptLogEntry } from '../webhook-attempts/schemas.js';

export const upcomingQuery = z.object({
  days: z.coerce.number().int().min(1).max(90).default(7),
  limit: pageQuery.shape.limit,
});

const upcomingItem = z.object({
  reminder_id: uuidOut(),
  task_id: uuidOut(),
  task_title: z.string(),
  remind_at: timestampOut(),
  channels: z.array(z.string()),
});

export const deliveryQuery = pageQuery.extend({
  status: z.enum(DELIVERY_STATUSES).optional(),
  channel: z.enum(CHANNELS).optional(),
  reminder_id: z.uuid().optional(),
  event_id: z.uuid().optional(),
});

export const deliveryParams = z.object({ delivery_id: z.uuid() });
export const dlqParams = z.object({ dlq_id: z.uuid() });

export const deliveryRead = z.object({
  id: uuidOut(),
  reminder_id: uuidOut(),
  endpoint_id: uuidOut().nullable(),
  channel: z.enum(CHANNELS),
  event: z.string(),
  event_id: uuidOut().describe('Stable across retries, redeliver and requeue of one event for one endpoint'),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  max_attempts: z.number().int().describe('Retries after the first try'),
  next_attempt_at: timestampOut().nullable(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  last_attempt_at: timestampOut().nullable(),
  delivered_at: timestampOut().nullable(),
  created_at: timestampOut(),
});

/** Detail adds the body the receiver gets (minus the per-try `attempt`) and every recorded try, oldest first. */
export const deliveryDetail = deliveryRead.extend({
  payload: z.record(z.string(), z.unknown()),
  attempts_log: z.array(attemptLogEntry),
});

export const deadLetterRead = z.object({
  id: uuidOut(),
  delivery_id: uuidOut(),
  reminder_id: uuidOut(),
  endpoint_id: uuidOut().nullable(),
  channel: z.enum(CHANNELS),
  reason: z.string(),
  last_status_code: z.number().int().nullable(),
  attempts: z.number().int(),
  created_at: timestampOut(),
});

export function toDelivery(row: DeliveryRecord): z.infer<typeof deliveryRead> {
  return {
    id: row.id,
    reminder_id: row.reminderId,
    endpoint_id: row.endpointId ?? null,
    channel: row.channel,
    event: row.event,
    event_id: row.eventId,
    status: row.status,
    attempts: row.attempts,
    max_attempts: row.maxAttempts,
    next_attempt_at: iso(row.nextAttemptAt),
    last_status_code: row.lastStatusCode ?? null,
    last_error: row.lastError ?? null,
    last_attempt_at: iso(row.lastAttemptAt),
    delivered_at: iso(row.deliveredAt),
    created_at: row.createdAt.toISOString(),
  };
}

export function toDeadLetter(row: DeadLetterRecord): z.infer<typeof deadLetterRead> {
  return {
    id: row.id,
    delivery_id: row.deliveryId,
    reminder_id: row.reminderId,
    endpoint_id: row.endpointId ?? null,
    channel: row.channel,
    reason: row.reason,
    last_status_code: row.lastStatusCode ?? null,
    attempts: row.attempts,
    created_at: row.createdAt.toISOString(),
  };
}

export const upcomingList = z.array(upcomingItem);

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  UpcomingReminder: upcomingItem,
  Delivery: deliveryRead,
  DeliveryDetail: deliveryDetail,
  DeadLetter: deadLetterRead,
});
