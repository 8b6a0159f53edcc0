import { nameSchemas, timestampOut, uuidOut } from '@routinely/platform';
import { z } from 'zod';
import type { AttemptRecord } from '../../domain/attempt-log.js';

/** One recorded try as the delivery detail lists it (`attempts_log`). */
export const attemptLogEntry = z.object({
  attempt: z.number().int().min(1).describe('The envelope `attempt` of this try; starts at 1 again after a redeliver'),
  at: timestampOut().describe('When the outcome was recorded'),
  status_code: z.number().int().nullable().describe("The receiver's HTTP status; null when none came"),
  error: z.string().nullable(),
  latency_ms: z.number().int().min(0),
});

/** A try as the endpoint's log lists it: also the delivery (null for test sends) and the event. */
export const endpointAttempt = attemptLogEntry.extend({
  id: uuidOut(),
  delivery_id: uuidOut().nullable(),
  event: z.string(),
  event_id: uuidOut(),
});

export function toAttemptLogEntry(row: AttemptRecord): z.infer<typeof attemptLogEntry> {
  return {
    attempt: row.attempt,
    at: row.at.toISOString(),
    status_code: row.statusCode ?? null,
    error: row.error ?? null,
    latency_ms: row.latencyMs,
  };
}

export function toEndpointAttempt(row: AttemptRecord): z.infer<typeof endpointAttempt> {
  return {
    id: row.id,
    delivery_id: row.deliveryId ?? null,
    event: row.event,
    event_id: row.eventId,
    ...toAttemptLogEntry(row),
  };
}

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  DeliveryAttempt: attemptLogEntry,
  WebhookEndpointAttempt: endpointAttempt,
});
