import { type EntityManager, Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { type Clock, notFound } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import { takeDeadLetter } from '../db/dead-letters-sql.js';
import { type Channel, DeadLetter, Delivery, type DeliveryRow, type DeliveryStatus } from '../db/entities.js';
import { notifyWakeup } from '../db/wakeups-sql.js';

export interface Page {
  limit: number;
  offset: number;
}

export async function listDeliveries(
  em: EntityManager,
  owner: Owner,
  filter: {
    status?: DeliveryStatus | undefined;
    channel?: Channel | undefined;
    reminder_id?: string | undefined;
    event_id?: string | undefined;
  },
  page: Page,
) {
  const where = {
    tenantId: owner.tenantId,
    userId: owner.userId,
    ...(filter.status ? { status: filter.status } : {}),
    ...(filter.channel ? { channel: filter.channel } : {}),
    ...(filter.reminder_id ? { reminderId: filter.reminder_id } : {}),
    ...(filter.event_id ? { eventId: filter.event_id } : {}),
  };
  const [items, total] = await em.findAndCount(Delivery, where, {
    orderBy: { createdAt: 'desc', id: 'desc' },
    limit: page.limit,
    offset: page.offset,
  });
  return { items, total };
}

export async function findDelivery(em: EntityManager, owner: Owner, id: string): Promise<DeliveryRow> {
  const row = await em.findOne(Delivery, { id, tenantId: owner.tenantId, userId: owner.userId });
  if (!row) throw notFound('Delivery');
  return row;
}

/**
 * State table: pending, attempts = 0, next_attempt_at = now, same delivery id. A dead delivery leaves the
 * dead-letter queue. The retry cycle starts over with the endpoint's current secret (ADR 040).
 */
export async function redeliver(em: EntityManager, owner: Owner, id: string, clock: Clock): Promise<DeliveryRow> {
  return em.transactional(async (tx) => {
    const row = await findDelivery(tx, owner, id);
    const now = clock.now();
    Object.assign(row, {
      status: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      leaseUntil: null,
      leaseToken: null,
      secretSealed: null,
      deliveredAt: null,
      updatedAt: now,
    });
    await tx.nativeDelete(DeadLetter, { deliveryId: row.id, tenantId: owner.tenantId, userId: owner.userId });
    await tx.flush();
    await notifyWakeup(Sql.within(tx), 'deliveries');
    return row;
  });
}

export async function listDeadLetters(em: EntityManager, owner: Owner, page: Page) {
  const [items, total] = await em.findAndCount(
    DeadLetter,
    { tenantId: owner.tenantId, userId: owner.userId },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: page.limit, offset: page.offset },
  );
  return { items, total };
}

/** State table: the dead-letter row is removed and a fresh pending delivery (new id) is inserted. */
export async function requeue(em: EntityManager, owner: Owner, dlqId: string, clock: Clock): Promise<DeliveryRow> {
  return em.transactional(async (tx) => {
    // Taking the row first (not reading it) makes concurrent requeues of one letter yield one delivery.
    const deliveryId = await takeDeadLetter(tx, owner, dlqId);
    if (!deliveryId) throw notFound('Dead-letter row');
    const original = await tx.findOne(Delivery, { id: deliveryId, tenantId: owner.tenantId });
    if (!original) throw notFound('Delivery');
    const now = clock.now();
    const id = uuidv7();
    const fresh = tx.create(Delivery, {
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
    });
    await tx.flush();
    await notifyWakeup(Sql.within(tx), 'deliveries');
    return fresh;
  });
}
