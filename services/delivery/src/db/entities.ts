import { defineEntity, type InferEntity, p } from '@routinely/db';

import type { Channel, DeliveryStatus, ReminderStatus } from '../domain/values.js';

const WebhookEndpoint = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.string().length(64).fieldName('tenant_id'),
    userId: p.string().length(64).fieldName('user_id'),
    name: p.string().length(200),
    url: p.text(),
    description: p.text().nullable(),
    enabled: p.boolean(),
    maxAttempts: p.integer().fieldName('max_attempts'),
    fallbackToEmail: p.boolean().fieldName('fallback_to_email'),
    /** AES-256-GCM sealed (SecretBox); the plaintext leaves the service only on create and rotation. */
    secretSealed: p.text().fieldName('secret_sealed'),
    secretPreview: p.string().length(32).fieldName('secret_preview'),
    /** Failed tries in a row (reset by a success); at WEBHOOK_CIRCUIT_THRESHOLD the circuit opens. */
    consecutiveFailures: p.integer().fieldName('consecutive_failures'),
    /** Until when the endpoint's deliveries pause; after it, one half-open probe at a time (ADR 043). */
    circuitOpenUntil: p.datetime().nullable().fieldName('circuit_open_until'),
    /** Event types the endpoint subscribes to; null = every type, including ones added later (ADR 044). */
    events: p.array().nullable(),
    createdAt: p.datetime().fieldName('created_at'),
    updatedAt: p.datetime().fieldName('updated_at'),
  },
  indexes: [{ properties: ['tenantId', 'userId'], name: 'webhook_endpoints_owner_idx' }],
});
export type WebhookEndpointRow = InferEntity<typeof WebhookEndpoint>;

/** One per scheduled task with channels; a copy of what the reminder needs, fed by task events. */
const Reminder = defineEntity({
  name: 'Reminder',
  tableName: 'reminders',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.string().length(64).fieldName('tenant_id'),
    userId: p.string().length(64).fieldName('user_id'),
    taskId: p.uuid().fieldName('task_id').unique('reminders_task_id_unique'),
    task: p.json<Record<string, unknown>>(),
    taskUpdatedAt: p.datetime().fieldName('task_updated_at'),
    /** The task version the reminder reflects; events of an older (or the same) version are ignored. */
    taskVersion: p.integer().fieldName('task_version').default(0),
    channels: p.json<Channel[]>(),
    remindAt: p.datetime().fieldName('remind_at'),
    status: p.string().length(16).$type<ReminderStatus>(),
    /** When the current remind_at was set (the envelope's reminder_set_at). */
    reminderSetAt: p.datetime().fieldName('reminder_set_at'),
    firedAt: p.datetime().nullable().fieldName('fired_at'),
    createdAt: p.datetime().fieldName('created_at'),
    updatedAt: p.datetime().fieldName('updated_at'),
  },
  indexes: [
    { properties: ['status', 'remindAt'], name: 'reminders_due_idx' },
    { properties: ['tenantId', 'userId', 'remindAt'], name: 'reminders_owner_idx' },
  ],
});
export type ReminderRow = InferEntity<typeof Reminder>;

const Delivery = defineEntity({
  name: 'Delivery',
  tableName: 'deliveries',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.string().length(64).fieldName('tenant_id'),
    userId: p.string().length(64).fieldName('user_id'),
    reminderId: p.uuid().fieldName('reminder_id'),
    endpointId: p.uuid().nullable().fieldName('endpoint_id'),
    channel: p.string().length(16).$type<Channel>(),
    event: p.string().length(64),
    /** One firing for one endpoint: kept across retries, redeliver and requeue (ADR 044). */
    eventId: p.uuid().fieldName('event_id'),
    /** The event body minus `attempt` (added per try); stable across retries. */
    payload: p.json<Record<string, unknown>>(),
    /** Secret of the first signed try, kept for the retries of this delivery (rotation overlap). */
    secretSealed: p.text().nullable().fieldName('secret_sealed'),
    status: p.string().length(16).$type<DeliveryStatus>(),
    attempts: p.integer(),
    maxAttempts: p.integer().fieldName('max_attempts'),
    nextAttemptAt: p.datetime().nullable().fieldName('next_attempt_at'),
    leaseUntil: p.datetime().nullable().fieldName('lease_until'),
    leaseToken: p.uuid().nullable().fieldName('lease_token'),
    lastStatusCode: p.integer().nullable().fieldName('last_status_code'),
    lastError: p.text().nullable().fieldName('last_error'),
    lastAttemptAt: p.datetime().nullable().fieldName('last_attempt_at'),
    deliveredAt: p.datetime().nullable().fieldName('delivered_at'),
    createdAt: p.datetime().fieldName('created_at'),
    updatedAt: p.datetime().fieldName('updated_at'),
  },
  indexes: [
    { properties: ['status', 'nextAttemptAt'], name: 'deliveries_due_idx' },
    { properties: ['tenantId', 'userId', 'createdAt'], name: 'deliveries_owner_idx' },
    { properties: ['tenantId', 'userId', 'eventId'], name: 'deliveries_event_idx' },
  ],
});
export type DeliveryRow = InferEntity<typeof Delivery>;

/**
 * One row per recorded try, written in the transaction that records the try's outcome (ADR 045). Test
 * sends have no delivery (delivery_id null) and are found through their endpoint.
 */
const DeliveryAttempt = defineEntity({
  name: 'DeliveryAttempt',
  tableName: 'delivery_attempts',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.string().length(64).fieldName('tenant_id'),
    userId: p.string().length(64).fieldName('user_id'),
    deliveryId: p.uuid().nullable().fieldName('delivery_id'),
    endpointId: p.uuid().nullable().fieldName('endpoint_id'),
    event: p.string().length(64),
    eventId: p.uuid().fieldName('event_id'),
    /** The `attempt` the envelope carried (starts at 1 again after a redeliver). */
    attempt: p.integer(),
    at: p.datetime(),
    statusCode: p.integer().nullable().fieldName('status_code'),
    error: p.text().nullable(),
    latencyMs: p.integer().fieldName('latency_ms'),
  },
  indexes: [
    { properties: ['deliveryId', 'at'], name: 'delivery_attempts_delivery_idx' },
    { properties: ['endpointId', 'at'], name: 'delivery_attempts_endpoint_idx' },
  ],
});
export type DeliveryAttemptRow = InferEntity<typeof DeliveryAttempt>;

const DeadLetter = defineEntity({
  name: 'DeadLetter',
  tableName: 'dead_letters',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.string().length(64).fieldName('tenant_id'),
    userId: p.string().length(64).fieldName('user_id'),
    deliveryId: p.uuid().fieldName('delivery_id').index('dead_letters_delivery_idx'),
    reminderId: p.uuid().fieldName('reminder_id'),
    endpointId: p.uuid().nullable().fieldName('endpoint_id'),
    channel: p.string().length(16).$type<Channel>(),
    reason: p.text(),
    lastStatusCode: p.integer().nullable().fieldName('last_status_code'),
    attempts: p.integer(),
    createdAt: p.datetime().fieldName('created_at'),
  },
  indexes: [{ properties: ['tenantId', 'userId', 'createdAt'], name: 'dead_letters_owner_idx' }],
});
export type DeadLetterRow = InferEntity<typeof DeadLetter>;

const Notification = defineEntity({
  name: 'Notification',
  tableName: 'notifications',
  properties: {
    id: p.uuid().primary(),
    tenantId: p.string().length(64).fieldName('tenant_id'),
    userId: p.string().length(64).fieldName('user_id'),
    kind: p.string().length(64),
    title: p.text(),
    body: p.text(),
    data: p.json<Record<string, unknown>>(),
    /** The delivery that created it: one notification per in-app delivery, even when a send is retried. */
    deliveryId: p.uuid().nullable().fieldName('delivery_id').unique('notifications_delivery_unique'),
    readAt: p.datetime().nullable().fieldName('read_at'),
    createdAt: p.datetime().fieldName('created_at'),
  },
  indexes: [{ properties: ['tenantId', 'userId', 'createdAt'], name: 'notifications_owner_idx' }],
});

/** Mail kept locally when no SMTP_URL is configured (the all-in-one default). */
const EmailOutbox = defineEntity({
  name: 'EmailOutbox',
  tableName: 'email_outbox',
  properties: {
    id: p.uuid().primary(),
    toAddress: p.text().fieldName('to_address'),
    fromAddress: p.text().fieldName('from_address'),
    subject: p.text(),
    text: p.text(),
    createdAt: p.datetime().fieldName('created_at'),
  },
});

/** Where to email a user: fed by auth.user.* events and by the caller's own token claims. */
const UserContact = defineEntity({
  name: 'UserContact',
  tableName: 'user_contacts',
  properties: {
    tenantId: p.string().length(64).primary().fieldName('tenant_id'),
    userId: p.string().length(64).primary().fieldName('user_id'),
    email: p.text(),
    updatedAt: p.datetime().fieldName('updated_at'),
  },
});

export const deliveryEntities = [
  WebhookEndpoint,
  Reminder,
  Delivery,
  DeliveryAttempt,
  DeadLetter,
  Notification,
  EmailOutbox,
  UserContact,
];
