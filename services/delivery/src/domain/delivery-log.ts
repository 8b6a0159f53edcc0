import type { Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { notFound } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import { deleteDeadLettersOf, ownerDeadLetters, takeDeadLetter } from '../db/dead-letters-sql.js';
import {
  type DeliveryFilter,
  insertDelivery,
  ownerDeliveries,
  ownerDelivery,
  tenantDelivery,
  writeDeliveryChange,
} from '../db/deliveries-sql.js';
import type { DeadLetterRow, DeliveryRow } from '../db/entities.js';
import { notifyWakeup } from '../db/wakeups-sql.js';
import type { DeliveryContext } from './context.js';

/** A delivery as stored: one target of one firing (or a requeue) and where its tries stand. */
export type DeliveryRecord = DeliveryRow;
/** A delivery given up on, waiting in its owner's dead-letter queue. */
export type DeadLetterRecord = DeadLetterRow;

export interface Page {
  limit: number;
  offset: number;
}

export type { DeliveryFilter };

/** A page of the owner's deliveries, newest first. */
export function listDeliveries(ctx: DeliveryContext, owner: Owner, filter: DeliveryFilter, page: Page) {
  return ownerDeliveries(ctx.db, owner, filter, page);
}

/** The owner's delivery, read in the transaction that changes it; 404 when it is not theirs. */
async function deliveryIn(sql: Sql, owner: Owner, id: string): Promise<DeliveryRow> {
  const row = await ownerDelivery(sql, owner, id);
  if (!row) throw notFound('Delivery');
  return row;
}

/**
 * State table: pending, attempts = 0, next_attempt_at = now, same delivery id. A dead delivery leaves the
 * dead-letter queue. The retry cycle starts over with the endpoint's current secret (ADR 040).
 */
export async function redeliver(ctx: DeliveryContext, owner: Owner, id: string): Promise<DeliveryRow> {
  return ctx.db.transaction(async (sql) => {
    const row = await deliveryIn(sql, owner, id);
    const now = ctx.clock.now();
    const change = {
      status: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      leaseUntil: null,
      leaseToken: null,
      secretSealed: null,
      deliveredAt: null,
      updatedAt: now,
    } satisfies Partial<DeliveryRow>;
    await deleteDeadLettersOf(sql, owner, row.id);
    await writeDeliveryChange(sql, row, change);
    await notifyWakeup(sql, 'deliveries');
    return { ...row, ...change };
  });
}

/** A page of the owner's dead letters, newest first. */
export function listDeadLetters(ctx: DeliveryContext, owner: Owner, page: Page) {
  return ownerDeadLetters(ctx.db, owner, page);
}

/** State table: the dead-letter row is removed and a fresh pending delivery (new id) is inserted. */
export async function requeue(ctx: DeliveryContext, owner: Owner, dlqId: string): Promise<DeliveryRow> {
  return ctx.db.transaction(async (sql) => {
    // Taking the row first (not reading it) makes concurrent requeues of one letter yield one delivery.
    const deliveryId = await takeDeadLetter(sql, owner, dlqId);
    if (!deliveryId) throw notFound('Dead-letter row');
    const original = await tenantDelivery(sql, owner.tenantId, deliveryId);
    if (!original) throw notFound('Delivery');
    const now = ctx.clock.now();
    const id = uuidv7();
    const fresh: DeliveryRow = {
      id,
      tenantId: original.tenantId,
      userId: original.userId,
      reminderId: original.reminderId,
      endpointId: original.endpointId,
      channel: original.channel,
      event: original.event,
      // Same firing, same endpoint: the event id carries over so receivers can dedupe across the requeue.
      eventId: original.eventId,
      payload: { ...original.payload, delivery_id: id },
      secretSealed: null,
      status: 'pending',
      attempts: 0,
      maxAttempts: original.maxAttempts,
      nextAttemptAt: now,
      leaseUntil: null,
      leaseToken: null,
      lastStatusCode: null,
      lastError: null,
      lastAttemptAt: null,
      deliveredAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await insertDelivery(sql, fresh);
    await notifyWakeup(sql, 'deliveries');
    return fresh;
  });
}
