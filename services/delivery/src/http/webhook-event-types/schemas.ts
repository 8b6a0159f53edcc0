import { documentWebhook, nameSchemas } from '@routinely/platform';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { EVENT_TYPES } from '../../domain/event-types.js';

const eventTypeRead = z.object({
  name: z.enum(EVENT_TYPES),
  description: z.string(),
  schema: z.record(z.string(), z.unknown()).describe('JSON Schema (2020-12) of the envelope (the request body)'),
});

export const eventTypeList = z.array(eventTypeRead);

// The envelopes posted to webhook endpoints, documented in the OpenAPI document's `webhooks` section.

const utc = z.iso.datetime().describe('UTC, with Z');
const uuid = z.uuid();

const common = {
  event_id: uuid.describe(
    'Same for one firing and endpoint across retries, redeliver and requeue (a requeue makes a new delivery_id): dedupe on it',
  ),
  delivery_id: uuid.describe('This delivery; stable across its retries'),
  occurred_at: utc,
  tenant_id: z.string(),
  user_id: z.string(),
  attempt: z.number().int().min(1).describe('1 on the first try, then 2, 3, ...'),
};

const reminderFired = z.object({
  event: z.literal('reminder.fired'),
  ...common,
  reminder_set_at: utc.describe('When the reminder was scheduled'),
  task: z.object({
    id: uuid,
    title: z.string(),
    description: z.string().nullable(),
    priority: z.number().int(),
    duration_min: z.number().int(),
    chosen_slot_start: utc.nullable(),
    chosen_slot_end: utc.nullable(),
    tags: z.array(z.string()),
  }),
});

const webhookTest = z.object({
  event: z.literal('webhook.test'),
  ...common,
  endpoint_id: uuid,
  message: z.string().describe('A diagnostic line naming the endpoint'),
});

const EVENT_ID = '0195f3a2-7c41-7d2e-9b1a-3f6e2d4c5b7a';
const DELIVERY_ID = '0195f3a2-8d52-7e3f-8c2b-4a7f3e5d6c8b';
const ENDPOINT_ID = '0195f3a2-9e63-7f4a-9d3c-5b8a4f6e7d9c';
const TENANT_ID = '0195f3a2-0000-7000-8000-000000000001';
const USER_ID = '0195f3a2-0000-7000-8000-000000000002';

nameSchemas({
  WebhookEventType: eventTypeRead,
  ReminderFiredEvent: {
    schema: reminderFired,
    example: {
      event: 'reminder.fired',
      event_id: EVENT_ID,
      delivery_id: DELIVERY_ID,
      occurred_at: '2026-03-02T08:45:00Z',
      tenant_id: TENANT_ID,
      user_id: USER_ID,
      attempt: 1,
      reminder_set_at: '2026-03-01T18:00:00Z',
      task: {
        id: '0195f3a2-7c41-7d2e-9b1a-3f6e2d4c5b7b',
        title: 'Water the plants',
        description: null,
        priority: 3,
        duration_min: 15,
        chosen_slot_start: '2026-03-02T09:00:00Z',
        chosen_slot_end: '2026-03-02T09:15:00Z',
        tags: ['garden'],
      },
    },
  },
  WebhookTestEvent: {
    schema: webhookTest,
    example: {
      event: 'webhook.test',
      event_id: EVENT_ID,
      delivery_id: DELIVERY_ID,
      occurred_at: '2026-03-02T08:45:00Z',
      tenant_id: TENANT_ID,
      user_id: USER_ID,
      attempt: 1,
      endpoint_id: ENDPOINT_ID,
      message: 'Test delivery for webhook endpoint "Home automation" from Routinely',
    },
  },
});

const headers = (event: string) => ({
  'X-Service-Signature': {
    description: 't=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + raw body)>; see "Verifying a signature"',
    example: 't=1772441100,v1=5b2d9c0e4f6a8b1c3d5e7f9a0b2c4d6e8f0a1b3c5d7e9f1a2b4c6d8e0f2a4b6c',
  },
  'X-Service-Timestamp': { description: 'Unix seconds at send (the t of the signature)', example: '1772441100' },
  'X-Service-Event': { description: 'The event kind', example: event },
  'X-Service-Event-Id': { description: 'event_id of the body: dedupe on it', example: EVENT_ID },
  'X-Service-Delivery-Id': { description: 'delivery_id of the body', example: DELIVERY_ID },
  'X-Service-Endpoint-Id': { description: 'The endpoint this was sent to', example: ENDPOINT_ID },
  'User-Agent': { description: 'Routinely/1.0', example: 'Routinely/1.0' },
});

const RESPONSES = {
  '2XX': 'Received: the delivery is sent',
  '429': 'Retried later (5 s, 30 s, 5 min, 1 h, then 6 h, 12 h, 24 h within the endpoint max_attempts)',
  '500': 'Any 5xx (and a timeout or connection error): retried like 429',
  '400': 'Any other 4xx: failed hard, straight to the dead-letter queue (requeue it from there)',
};

/**
 * The events this service posts to webhook endpoints, for the document's `webhooks` section. Their
 * bodies are canonical JSON (keys sorted, no whitespace); receivers verify the signature over the raw bytes.
 */
export function documentWebhookEvents(app: FastifyInstance): void {
  const retries =
    'max_attempts (0 to 8, default 4) counts the retries after the first try; 3xx answers are followed once.';
  documentWebhook(app, 'reminder.fired', {
    operationId: 'onReminderFired',
    summary: "A task's reminder is due (channel webhook)",
    description: `Sent to every enabled endpoint of the task's owner that takes reminder.fired. ${retries}`,
    payload: reminderFired,
    headers: headers('reminder.fired'),
    responses: RESPONSES,
  });
  documentWebhook(app, 'webhook.test', {
    operationId: 'onWebhookTest',
    summary: 'A test send (POST /service/webhooks/{endpoint_id}/test)',
    description: 'Signed like real deliveries; sent once, never retried, and not counted against max_attempts.',
    payload: webhookTest,
    headers: headers('webhook.test'),
    responses: { '2XX': 'Received', '400': 'Any non-2xx answer is reported back in the test result' },
  });
}
