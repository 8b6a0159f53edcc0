import { z } from 'zod';

/**
 * The events this service posts to webhook endpoints (ADR 044). Their envelope schemas are the single
 * description of what a receiver gets: `GET /webhooks/event-types` answers them as JSON Schema, and the
 * OpenAPI document's `webhooks` section can be built from the same objects.
 */
const datetime = z.iso.datetime().describe('ISO-8601 UTC with Z');

const common = {
  event_id: z
    .uuid()
    .describe(
      'Identifies one event for one endpoint: the same on every retry, redeliver and requeue of it. Dedupe on this.',
    ),
  delivery_id: z
    .uuid()
    .describe('Identifies this delivery; stable across its retries and redeliver, new on a requeue.'),
  occurred_at: datetime,
  tenant_id: z.string(),
  user_id: z.string(),
  attempt: z.number().int().min(1).describe('1 on the first try, counting up on each retry of this delivery.'),
};

const reminderFiredEnvelope = z.object({
  event: z.literal('reminder.fired'),
  ...common,
  reminder_set_at: datetime.describe('When the reminder time in force was set'),
  task: z.object({
    id: z.uuid(),
    title: z.string(),
    description: z.string().nullable(),
    priority: z.number().int(),
    duration_min: z.number().int(),
    chosen_slot_start: datetime,
    chosen_slot_end: datetime,
    tags: z.array(z.string()),
  }),
});

const webhookTestEnvelope = z.object({
  event: z.literal('webhook.test'),
  ...common,
  attempt: z.literal(1).describe('A test is tried once.'),
  endpoint_id: z.uuid(),
  message: z.string(),
});

export const EVENT_TYPES = ['reminder.fired', 'webhook.test'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface EventTypeInfo {
  name: EventType;
  description: string;
  envelope: z.ZodType;
}

export const EVENT_CATALOG: readonly EventTypeInfo[] = [
  {
    name: 'reminder.fired',
    description:
      "A task's reminder time was reached (chosen_slot_start minus reminder_offset_min). Sent once per subscribed, enabled endpoint of the task's owner; retried on 429, 5xx and network errors.",
    envelope: reminderFiredEnvelope,
  },
  {
    name: 'webhook.test',
    description:
      'Sent by POST /webhooks/{endpoint_id}/test, signed like a real delivery, tried once. It is sent whatever the endpoint subscribes to.',
    envelope: webhookTestEnvelope,
  },
];

/**
 * What an endpoint receives. A stored null means "every event type", including types added later; an
 * explicit list is kept as given.
 */
export function subscribedEvents(stored: readonly string[] | null | undefined): EventType[] {
  return stored ? EVENT_TYPES.filter((t) => stored.includes(t)) : [...EVENT_TYPES];
}

/** The request field `events`: known types only, at least one (duplicates are dropped when stored). */
export const eventsField = z.array(z.enum(EVENT_TYPES)).min(1).max(64);
