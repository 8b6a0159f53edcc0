import type { Sql } from '@routinely/db';
import type { schedulerEvents } from '@routinely/events';
import type { z } from 'zod';
import { insertNotification } from '../db/notifications-sql.js';

type Conflicted = z.infer<(typeof schedulerEvents.scheduleConflicted)['schema']>;

const utc = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** What the bell says: which tasks moved where, and which could not be kept (now unscheduled). */
function conflictText(d: Conflicted): { title: string; body: string } {
  const count = d.moved.length + d.unscheduled.length;
  const title =
    count === 1
      ? `"${(d.moved[0] ?? d.unscheduled[0])?.title}" ${d.moved.length === 1 ? 'was moved' : 'could not be kept'}`
      : `${count} tasks changed because of "${d.event.title}"`;
  const lines = [
    ...d.moved.map((m) => `"${m.title}" moved to ${utc(m.to_start)} - ${utc(m.to_end)}.`),
    ...d.unscheduled.map((u) => `"${u.title}" could not be kept and is now unscheduled.`),
  ];
  const body = `Your calendar event "${d.event.title}" (${utc(d.event.start)} - ${utc(d.event.end)}) overlapped scheduled work. ${lines.join(' ')}`;
  return { title, body };
}

/**
 * The bell notification of a calendar conflict (kind `schedule.conflict`): one per scheduler event, whose id
 * it takes, so a redelivered event never adds a second bell.
 */
export async function writeConflictNotification(
  sql: Sql,
  event: { id: string; data: Conflicted },
  now: Date,
): Promise<void> {
  const d = event.data;
  const { title, body } = conflictText(d);
  await insertNotification(sql, {
    id: event.id,
    tenant_id: d.tenant_id,
    user_id: d.user_id,
    kind: 'schedule.conflict',
    title,
    body,
    data: d,
    delivery_id: null,
    created_at: now,
  });
}
