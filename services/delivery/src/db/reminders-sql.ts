import type { EntityManager } from '@routinely/db';

/**
 * Serializes the handling of one task's events until the transaction ends. A row lock cannot do it: the
 * first event of a task has no reminder row to lock yet.
 */
export async function lockTask(em: EntityManager, taskId: string): Promise<void> {
  await em
    .getConnection()
    .execute(
      "select pg_advisory_xact_lock(hashtextextended('delivery.reminder:' || ?, 0))",
      [taskId],
      'all',
      em.getTransactionContext(),
    );
}
