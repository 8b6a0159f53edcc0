import type { Sql } from '@routinely/db';
import { errorClassOf, errorSummary, type Logger, runInEventSpan } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import type { z } from 'zod';
import { insertDeadLetter } from './db/dead-letters-sql.js';
import { recordInbox } from './db/inbox-sql.js';
import { enqueue } from './db/outbox-sql.js';
import { type EventDefinition, type EventOf, envelopeSchema, makeEvent } from './envelope.js';
import { eventMetrics } from './metrics.js';
import type { Delivery, DeliveryPolicy, EventTransport } from './transport.js';

export type AnyEventDefinition = EventDefinition<z.ZodType, string>;

/** A consumer: the events it takes, how they are redelivered, and the handler that writes its rows. */
export interface ConsumerDefinition<D extends AnyEventDefinition = AnyEventDefinition> {
  /** `<svc>.<purpose>`: the durable consumer name and the inbox / dead-letter key. */
  durable: string;
  events: readonly D[];
  policy: DeliveryPolicy;
  /**
   * Runs in the consumer's transaction with the inbox insert; writes rows only (slow I/O belongs to workers).
   * Answering `false` says it changed nothing, so `afterCommit` is not called for it.
   */
  handle(sql: Sql, event: EventOf<D>): Promise<HandlerOutcome>;
  /**
   * Optional: handles the new events of a burst (not in the inbox before, each once, in delivery order) in
   * the burst's transaction, leaving exactly the rows `handle` would leave applied to each in turn, each
   * seeing the previous ones' changes. It lets a consumer do per burst what `handle` does per event (one lock
   * set, one lookup) instead of paying round trips per event. `inEventSpan` runs a step of one event in that
   * event's consumer span, so traces still continue each producer's trace. Without it `handle` runs for each.
   */
  handleBurst?(sql: Sql, events: readonly EventOf<D>[], inEventSpan: InEventSpan<D>): Promise<HandlerOutcome>;
  /**
   * Optional: called once the transaction in which `handle` or `handleBurst` ran (and did not answer `false`)
   * committed, e.g. to wake this process's worker for the rows just written; never for a redelivery the inbox
   * skipped. Keep it quick and non-throwing: the event is already handled when it runs.
   */
  afterCommit?(): void;
}

/** What a handler answers: `false` when it wrote nothing worth an `afterCommit`; nothing otherwise. */
type HandlerOutcome = boolean | void;

/** Runs `step` in the consumer span of `event` (a burst handler's per-event part). */
export type InEventSpan<D extends AnyEventDefinition> = <T>(event: EventOf<D>, step: () => Promise<T>) => Promise<T>;

/**
 * Declares a consumer. `events` lists catalog entries or takes a whole catalog (`events: taskEvents`); the
 * handler receives the envelope with `data` parsed by the event's catalog schema, typed as a union
 * discriminated on `type`.
 */
export function defineConsumer<const D extends AnyEventDefinition>(definition: {
  durable: string;
  events: readonly D[] | Readonly<Record<string, D>>;
  policy: DeliveryPolicy;
  handle(sql: Sql, event: EventOf<D>): Promise<HandlerOutcome>;
  handleBurst?(sql: Sql, events: readonly EventOf<D>[], inEventSpan: InEventSpan<D>): Promise<HandlerOutcome>;
  afterCommit?: (() => void) | undefined;
}): ConsumerDefinition<D> {
  const events: readonly D[] = Array.isArray(definition.events)
    ? (definition.events as readonly D[])
    : Object.values(definition.events as Readonly<Record<string, D>>);
  const { policy } = definition;
  if (events.length === 0) throw new Error(`consumer ${definition.durable} takes no events`);
  if (!Number.isInteger(policy.maxDeliver) || policy.maxDeliver < 1) {
    throw new Error(`consumer ${definition.durable}: maxDeliver must be a positive integer`);
  }
  if (policy.backoffMs.length >= policy.maxDeliver && policy.backoffMs.length > 0) {
    throw new Error(`consumer ${definition.durable}: backoffMs needs fewer entries than maxDeliver`);
  }
  if (policy.ackWaitMs <= 0 || policy.backoffMs.some((ms) => ms < 0)) {
    throw new Error(`consumer ${definition.durable}: ackWaitMs must be positive and backoffMs non-negative`);
  }
  return {
    durable: definition.durable,
    events,
    policy,
    handle: definition.handle,
    ...(definition.handleBurst ? { handleBurst: definition.handleBurst } : {}),
    ...(definition.afterCommit ? { afterCommit: definition.afterCommit } : {}),
  };
}

export interface ConsumerDeps {
  /** The service's database handle (`Sql.of(orm)`). */
  db: Sql;
  transport: EventTransport;
  logger: Logger;
  /**
   * When set, every dead letter also enqueues this event (`{ consumer, type, at }`, tenant '') in the transaction
   * that stores it: how a service whose health nobody asks over gRPC reports its consumers' failures (ADR 029).
   */
  deadLettered?: EventDefinition<z.ZodType<{ consumer: string; type: string; at: string }>, string>;
  /** The service's clock: dates a dead letter (the health page ages it by the same clock) and its report. */
  clock?: { now(): Date };
}

export type ParsedDelivery =
  | { kind: 'event'; event: EventOf<AnyEventDefinition> }
  | { kind: 'ignored' }
  | { kind: 'poison'; eventId: string | null; error: string };

/** The message as the consumer's typed event; not an envelope, or data its catalog rejects, is poison. */
export function parseDelivery(consumer: ConsumerDefinition, payload: unknown): ParsedDelivery {
  const envelope = envelopeSchema.safeParse(payload);
  if (!envelope.success)
    return { kind: 'poison', eventId: null, error: `not an event envelope: ${envelope.error.message}` };
  const definition = consumer.events.find((e) => e.type === envelope.data.type);
  if (!definition) return { kind: 'ignored' };
  const data = definition.schema.safeParse(envelope.data.data);
  if (!data.success) {
    return { kind: 'poison', eventId: envelope.data.id, error: `data fails ${definition.type}: ${data.error.message}` };
  }
  return { kind: 'event', event: { ...envelope.data, data: data.data } as EventOf<AnyEventDefinition> };
}

/**
 * Handles one delivery: the one place a consumer's handler is invoked from a transport (tracing wraps this).
 * Poison is dead-lettered at once; a failing handler throws so the transport redelivers, until the last
 * attempt, whose failure is dead-lettered and acked.
 */
export async function deliverToConsumer(consumer: ConsumerDefinition, deps: ConsumerDeps, delivery: Delivery) {
  if (delivery.attempt > 1) eventMetrics.redeliveries.inc({ consumer: consumer.durable });
  return deliverParsed(consumer, deps, delivery, parseDelivery(consumer, delivery.payload));
}

/** `deliverToConsumer` after counting and parsing (a burst parses its deliveries once, ADR 004). */
export async function deliverParsed(
  consumer: ConsumerDefinition,
  deps: ConsumerDeps,
  delivery: Delivery,
  parsed: ParsedDelivery,
): Promise<void> {
  if (parsed.kind === 'ignored') return;
  if (parsed.kind === 'poison') return deadLetter(deps, consumer, delivery, parsed.eventId, parsed.error);
  if (delivery.attempt > consumer.policy.maxDeliver) {
    // JetStream's one extra delivery: earlier ones timed out (a crash, a hang) or even their dead letter failed.
    return deadLetter(
      deps,
      consumer,
      delivery,
      parsed.event.id,
      `no delivery acknowledged within ${consumer.policy.maxDeliver} attempts`,
    );
  }
  const { event } = parsed;
  try {
    // The consumer's span continues the producer's trace (the envelope carries its traceparent).
    await runInEventSpan(event, () => handleOnce(deps.db, consumer, event), consumer.durable);
  } catch (error) {
    if (delivery.attempt < consumer.policy.maxDeliver) throw error;
    await deadLetter(deps, consumer, delivery, parsed.event.id, error);
  }
}

/**
 * Runs the handler in a transaction together with the inbox insert: a redelivered event finds its id in the
 * inbox and is skipped, so handling is exactly-once in effect. `alsoInTransaction` runs in the same
 * transaction when the handler ran or the event was already handled (replay deletes its dead letter there).
 */
export async function handleOnce(
  db: Sql,
  consumer: ConsumerDefinition,
  event: EventOf<AnyEventDefinition>,
  alsoInTransaction?: (sql: Sql) => Promise<void>,
): Promise<void> {
  let changed = false;
  await db.transaction(async (sql) => {
    if ((await recordInbox(sql, consumer.durable, [event.id])).size > 0) {
      changed = (await consumer.handle(sql, event as never)) !== false;
    }
    await alsoInTransaction?.(sql);
  });
  if (changed) consumer.afterCommit?.();
}

/**
 * Stores the message as a dead letter (once per consumer and event), logs it without the payload, counts it.
 * `failure` is our own text (poison) or what the handler threw: stored and logged by `errorSummary` and its
 * class and code, never a database error's message, which holds the statement and its bind values.
 */
async function deadLetter(
  deps: ConsumerDeps,
  consumer: ConsumerDefinition,
  delivery: Delivery,
  eventId: string | null,
  failure: unknown,
): Promise<void> {
  const error = errorSummary(failure);
  const at = deps.clock?.now() ?? new Date();
  const letter = {
    id: uuidv7(),
    consumer: consumer.durable,
    event_id: eventId,
    subject: delivery.subject,
    payload: delivery.payload,
    error,
    attempts: delivery.attempt,
    created_at: at,
  };
  const { deadLettered } = deps;
  if (deadLettered) {
    const report = makeEvent(
      deadLettered,
      { tenantId: '', userId: null, at },
      { consumer: consumer.durable, type: delivery.subject, at: at.toISOString() },
    );
    await deps.db.transaction(async (sql) => {
      await insertDeadLetter(sql, letter);
      await enqueue(sql, report);
    });
  } else {
    await insertDeadLetter(deps.db, letter);
  }
  const cause = typeof failure === 'string' ? { error_class: 'poison' } : errorClassOf(failure);
  deps.logger.error(
    { event: eventId, type: delivery.subject, consumer: consumer.durable, attempts: delivery.attempt, error, ...cause },
    'event dead-lettered',
  );
  eventMetrics.deadLettered.inc({ consumer: consumer.durable, type: delivery.subject });
}
