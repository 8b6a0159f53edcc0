import type { EntityManager } from '@routinely/db';

/**
 * Serializes the handling of each task's events until the transaction ends. A row lock cannot do it: the
 * first event of a task has no reminder row to lock yet. One statement for all of a burst's tasks, taking
 * the locks in the order given (callers sort the ids, so two bursts never wait on each other in a cycle).
 */
export async function lockTasks(em: EntityManager, taskIds: readonly string[]): Promise<void> {
  if (taskIds.length === 0) return;
  await em.getConnection().execute(
    `select pg_advisory_xact_lock(hashtextextended('delivery.reminder:' || k.id, 0))
       from unnest(array[?]::text[]) with ordinality as k(id, n) order by k.n`,
    [taskIds],
    'all',
    em.getTransactionContext(),
  );
}
