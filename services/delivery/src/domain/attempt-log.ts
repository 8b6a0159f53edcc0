import type { EntityManager } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { DeliveryAttempt, type DeliveryAttemptRow } from '../db/entities.js';
import type { Page } from './delivery-log.js';
import { findEndpoint } from './endpoints.js';

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
  await findEndpoint(em, owner, endpointId);
  const [items, total] = await em.findAndCount(
    DeliveryAttempt,
    { endpointId, tenantId: owner.tenantId, userId: owner.userId },
    { orderBy: { at: 'desc', id: 'desc' }, limit: page.limit, offset: page.offset },
  );
  return { items, total };
}
