import { nameSchemas, timestampOut, uuidOut } from '@routinely/platform';
import { z } from 'zod';
import type { Endpoint } from '../../domain/endpoints.js';
import { EVENT_TYPES, eventsField, subscribedEvents } from '../../domain/event-types.js';
import { MAX_MAX_ATTEMPTS } from '../../domain/retry-policy.js';

const MAX_ATTEMPTS =
  'Retries after the first try (0 = one try only); waits 5 s, 30 s, 5 min, 1 h, then 6 h, 12 h, 24 h, 24 h, then the dead-letter queue';
const SUBSCRIBE =
  'Event types to receive (GET /webhooks/event-types lists them); omitted or null means every type, including types added later';

export const endpointParams = z.object({ endpoint_id: z.uuid() });

export const endpointCreateBody = z.object({
  name: z.string().trim().min(1).max(200),
  url: z.string().min(1).max(2048),
  description: z.string().max(2000).nullish(),
  enabled: z.boolean().optional(),
  max_attempts: z.number().int().min(0).max(MAX_MAX_ATTEMPTS).default(4).describe(MAX_ATTEMPTS),
  fallback_to_email: z.boolean().optional(),
  events: eventsField.nullish().describe(SUBSCRIBE),
});

export const endpointPatchBody = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  url: z.string().min(1).max(2048).optional(),
  description: z.string().max(2000).nullish(),
  enabled: z.boolean().optional(),
  max_attempts: z.number().int().min(0).max(MAX_MAX_ATTEMPTS).optional().describe(MAX_ATTEMPTS),
  fallback_to_email: z.boolean().optional(),
  events: eventsField.nullish().describe(SUBSCRIBE),
});

export const endpointRead = z.object({
  id: uuidOut(),
  name: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  enabled: z.boolean(),
  max_attempts: z.number().int().describe(MAX_ATTEMPTS),
  fallback_to_email: z.boolean(),
  events: z.array(z.enum(EVENT_TYPES)).describe('The event types this endpoint receives'),
  secret_preview: z.string(),
  consecutive_failures: z.number().int(),
  created_at: timestampOut(),
  updated_at: timestampOut(),
});

/** Create and rotate only: the plaintext secret, shown once. */
export const endpointWithSecret = endpointRead.extend({ secret: z.string() });

export const testResult = z.object({
  ok: z.boolean(),
  event_id: uuidOut().describe('The event_id of the webhook.test sent; the attempt is listed under the endpoint'),
  status_code: z.number().int(),
  latency_ms: z.number().int(),
  signature: z.string(),
  response_preview: z.string(),
  error: z.string().optional(),
});

export function toEndpoint(row: Endpoint): z.infer<typeof endpointRead> {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    description: row.description ?? null,
    enabled: row.enabled,
    max_attempts: row.maxAttempts,
    fallback_to_email: row.fallbackToEmail,
    events: subscribedEvents(row.events),
    secret_preview: row.secretPreview,
    consecutive_failures: row.consecutiveFailures,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export const endpointList = z.array(endpointRead);
export const endpointDeleted = z.null();

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  WebhookEndpointCreate: endpointCreateBody,
  WebhookEndpointPatch: endpointPatchBody,
  WebhookEndpoint: endpointRead,
  WebhookEndpointWithSecret: endpointWithSecret,
  WebhookTestResult: testResult,
});
