import { column, row, type Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';

/**
 * Open tasks (pending or scheduled) of one user by deadline: overdue before `now`, due from `now` to the end
 * of the user's local today (ADR 025).
 */
export async function countDueTasks(sql: Sql, owner: Owner, now: Date, endOfToday: Date) {
  const counts = await sql.first(
    row({ due_today: column.integer, overdue: column.integer }),
    `select count(*) filter (where deadline_at >= ? and deadline_at < ?)::int as due_today,
            count(*) filter (where deadline_at < ?)::int as overdue
     from tasks
     where tenant_id = ? and user_id = ? and status in ('pending', 'scheduled') and deadline_at is not null`,
    [now, endOfToday, now, owner.tenantId, owner.userId],
  );
  return { dueToday: counts?.due_today ?? 0, overdue: counts?.overdue ?? 0 };
}
