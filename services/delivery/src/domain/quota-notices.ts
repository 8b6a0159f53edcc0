import type { EntityManager } from '@routinely/db';
import type { schedulerEvents } from '@routinely/events';
import type { z } from 'zod';

type SoftBreach = z.infer<(typeof schedulerEvents.quotaSoftBreached)['schema']>;

/**
 * The bell notification of a crossed soft cap. The scheduler emits one event per user and local day; the
 * notification takes the event's id, so a redelivered event never adds a second bell.
 */
export async function writeSoftBreachNotification(
  em: EntityManager,
  event: { id: string; data: SoftBreach },
  now: Date,
): Promise<void> {
  const d = event.data;
  await em.getConnection().execute(
    `insert into notifications (id, tenant_id, user_id, kind, title, body, data, delivery_id, read_at, created_at)
     values (?, ?, ?, 'quota.soft_breached', ?, ?, ?, null, null, ?) on conflict (id) do nothing`,
    [
      event.id,
      d.tenant_id,
      d.user_id,
      'Model spend passed your soft cap',
      `You have spent ${d.daily_usd.toFixed(2)} USD today (${d.date}); the soft cap is ${d.soft_cap_usd.toFixed(2)} USD and runs stop at ${d.hard_cap_usd.toFixed(2)} USD.`,
      JSON.stringify(d),
      now,
    ],
    'run',
    em.getTransactionContext(),
  );
}
