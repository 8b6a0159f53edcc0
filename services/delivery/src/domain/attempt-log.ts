import type { Owner } from '@routinely/platform';
import { notFound } from '@routinely/platform';
import { deliveryAttempts, endpointAttempts } from '../db/attempts-sql.js';
import { ownerDelivery } from '../db/deliveries-sql.js';
import type { DeliveryAttemptRow } from '../db/entities.js';
import type { DeliveryContext } from './context.js';
import type { DeliveryRecord, Page } from './delivery-log.js';
import { findEndpoint } from './endpoints.js';

/** One recorded try of a delivery or a test send. */
export type AttemptRecord = DeliveryAttemptRow;

/** The tries made to one endpoint of the owner (deliveries and test sends), newest first; 404 for another's. */
export async function attemptsOfEndpoint(ctx: DeliveryContext, owner: Owner, endpointId: string, page: Page) {
  await findEndpoint(ctx, owner, endpointId);
  return endpointAttempts(ctx.db, owner, endpointId, page);
}

/** One delivery of the owner with every recorded try of it, oldest first; 404 for another's. */
export async function deliveryWithAttempts(
  ctx: DeliveryContext,
  owner: Owner,
  id: string,
): Promise<{ row: DeliveryRecord; attempts: AttemptRecord[] }> {
  const row = await ownerDelivery(ctx.db, owner, id);
  if (!row) throw notFound('Delivery');
  return { row, attempts: await deliveryAttempts(ctx.db, owner, row.id) };
}
