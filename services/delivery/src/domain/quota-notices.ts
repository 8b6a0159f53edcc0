import type { Sql } from '@routinely/db';
import type { schedulerEvents } from '@routinely/events';
import type { z } from 'zod';
import { insertNotification } from '../db/notifications-sql.js';

type SoftBreach = z.infer<(typeof schedulerEvents.quotaSoftBreached)['schema']>;

/**
 * The bell notification of a crossed soft cap. The scheduler emits one event per user and local day; the
 * notification takes the event's id, so a redelivered event never adds a second bell.
 */
export async function writeSoftBreachNotification(
  sql: Sql,
  event: { id: string; data: SoftBreach },
  now: Date,
): Promise<void> {
  const d = event.data;
  await insertNotification(sql, {
    id: event.id,
    tenant_id: d.tenant_id,
    user_id: d.user_id,
    kind: 'quota.soft_breached',
    title: 'Model spend passed your soft cap',
    body: `You have spent ${d.daily_usd.toFixed(2)} USD today (${d.date}); the soft cap is ${d.soft_cap_usd.toFixed(2)} USD and runs stop at ${d.hard_cap_usd.toFixed(2)} USD.`,
    data: d,
    delivery_id: null,
    created_at: now,
  });
}
