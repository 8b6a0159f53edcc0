import type { EntityManager } from '@routinely/db';
import type { Owner } from '@routinely/platform';

/**
 * Removes the owner's dead letter and says which delivery it held, or null when it is not (or no longer)
 * there. The delete takes the row lock, so of racing requeues exactly one gets the row: the others wait for
 * it to commit and then find nothing to delete.
 */
export async function takeDeadLetter(em: EntityManager, owner: Owner, dlqId: string): Promise<string | null> {
  const rows = await em
    .getConnection()
    .execute<{ delivery_id: string }[]>(
      'delete from dead_letters where id = ? and tenant_id = ? and user_id = ? returning delivery_id',
      [dlqId, owner.tenantId, owner.userId],
      'all',
      em.getTransactionContext(),
    );
  return rows[0]?.delivery_id ?? null;
}
