import { defineEntity, p } from '@routinely/db';
import type { EventEnvelope } from './envelope.js';

/** Events waiting to be published, written in the same transaction as the change they describe. */
export const OutboxMessage = defineEntity({
  name: 'OutboxMessage',
  tableName: 'outbox',
  // The relay's claim walks the unpublished rows (published_at null) in id order: one index gives both.
  indexes: [{ name: 'outbox_published_at_id_idx', properties: ['publishedAt', 'id'] }],
  properties: {
    id: p.uuid().primary(),
    subject: p.string().length(200),
    /** The event, or a run of the transaction's consecutive events of one type (an array of `events`). */
    payload: p.json<EventEnvelope | EventEnvelope[]>(),
    events: p.integer().default(1),
    createdAt: p.datetime().fieldName('created_at'),
    publishedAt: p.datetime().nullable().fieldName('published_at'),
    /** Until when a relay owns the row (it is being published); an expired lease lets another relay retry. */
    claimedUntil: p.datetime().nullable().fieldName('claimed_until'),
  },
});

/** Ids of events a consumer has already handled, written in the consumer's own transaction. */
export const InboxMessage = defineEntity({
  name: 'InboxMessage',
  tableName: 'inbox',
  properties: {
    consumer: p.string().length(100).primary(),
    eventId: p.uuid().primary().fieldName('event_id'),
    processedAt: p.datetime().fieldName('processed_at'),
  },
});

/** Messages a consumer gave up on (after its policy's attempts, or data its catalog schema rejects). */
export const EventDeadLetter = defineEntity({
  name: 'EventDeadLetter',
  tableName: 'event_dead_letter',
  uniques: [{ properties: ['consumer', 'eventId'], name: 'event_dead_letter_consumer_event_id_unique' }],
  properties: {
    id: p.uuid().primary(),
    consumer: p.string().length(100),
    /** Null when the message was not even an envelope. */
    eventId: p.uuid().nullable().fieldName('event_id'),
    subject: p.string().length(200),
    payload: p.json<unknown>(),
    error: p.text(),
    attempts: p.integer(),
    createdAt: p.datetime().fieldName('created_at'),
  },
});

export const eventEntities = [OutboxMessage, InboxMessage, EventDeadLetter];
