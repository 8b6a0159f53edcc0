import { type EntityManager, Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { DeliveryAttempt, type DeliveryAttemptRow } from '../db/entities.js';
import type { DeliveryContext } from './context.js';
import { type DeliveryRecord, findDelivery, type Page } from './delivery-log.js';
import { endpointOf } from './endpoints.js';

/** One recorded try of a delivery or a test send. */
export type AttemptRecord = DeliveryAttemptRow;

/** Every recorded try of one delivery (already found for its owner), oldest first. */
export function attemptsOfDelivery(em: EntityManager, owner: Owner, deliveryId: string): Promise<DeliveryAttemptRow[]> {
  return em.find(
    DeliveryAttempt,
    { deliveryId, tenantId: owner.tenantId, userId: owner.userId },
    { orderBy: { at: 'asc', id: 'asc' } },
  );
}

/** The tries made to one endpoint (deliveries and test sends), newest first. */
export async function attemptsOfEndpoint(em: EntityManager, owner: Owner, endpointId: string, page: Page) {
  await endpointOf(em, owner, endpointId);
  const [items, total] = await em.findAndCount(
    DeliveryAttempt,
    { endpointId, tenantId: owner.tenantId, userId: owner.userId },
    { orderBy: { at: 'desc', id: 'desc' }, limit: page.limit, offset: page.offset },
  );
  return { items, total };
}

export function endpointAttemptPage(ctx: DeliveryContext, owner: Owner, endpointId: string, page: Page) {
  return Sql.transaction(ctx.orm, (_sql, em) => attemptsOfEndpoint(em, owner, endpointId, page));
}

/** One delivery of the owner with every recorded try of it, oldest first. */
export function deliveryWithAttempts(
  ctx: DeliveryContext,
  owner: Owner,
  id: string,
): Promise<{ row: DeliveryRecord; attempts: AttemptRecord[] }> {
  return Sql.transaction(ctx.orm, async (_sql, em) => {
    const row = await findDelivery(em, owner, id);
    return { row, attempts: await attemptsOfDelivery(em, owner, row.id) };
  });
}
