import { column, row, type Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import type { TaskRow } from '../domain/task-model.js';
import { TASK_COLUMNS, taskRow } from './task-sql.js';

const feedOwnerRow = row({ tenant_id: column.uuid, user_id: column.uuid, token_hash: column.text });

/** Stores the user's one feed token hash (a new one replaces the old, which stops working at once). */
export async function saveFeedToken(sql: Sql, owner: Owner, tokenHash: string, now: Date): Promise<void> {
  await sql.run(
    `insert into calendar_feeds (tenant_id, user_id, token_hash, created_at) values (?, ?, ?, ?)
     on conflict (tenant_id, user_id) do update set token_hash = excluded.token_hash, created_at = excluded.created_at`,
    [owner.tenantId, owner.userId, tokenHash, now],
  );
}

export async function deleteFeedToken(sql: Sql, owner: Owner): Promise<void> {
  await sql.run('delete from calendar_feeds where tenant_id = ? and user_id = ?', [owner.tenantId, owner.userId]);
}

/** Whose feed a token hash opens (its unique key), with the stored hash for the constant-time comparison. */
export async function findFeedOwner(sql: Sql, tokenHash: string): Promise<(Owner & { tokenHash: string }) | undefined> {
  const found = await sql.first(
    feedOwnerRow,
    'select tenant_id, user_id, token_hash from calendar_feeds where token_hash = ?',
    [tokenHash],
  );
  return found && { tenantId: found.tenant_id, userId: found.user_id, tokenHash: found.token_hash };
}

/**
 * The owner's tasks with a slot starting in `[from, to)` that the feed shows (scheduled, done or skipped): the
 * `limit` soonest of those not yet ended at `now`, and the `limit` most recently ended. Each half walks
 * `tasks_owner_slot_idx` in its own order and stops at the limit.
 */
export async function feedTasks(
  sql: Sql,
  owner: Owner,
  window: { from: Date; to: Date; now: Date },
  limit: number,
): Promise<TaskRow[]> {
  const shown = `tenant_id = ? and user_id = ? and status in ('scheduled', 'done', 'skipped')
       and chosen_slot_start is not null and chosen_slot_start >= ? and chosen_slot_start < ?`;
  const params = [owner.tenantId, owner.userId, window.from, window.to, window.now];
  return sql.rows(
    taskRow,
    `(select ${TASK_COLUMNS} from tasks where ${shown} and chosen_slot_end > ?
       order by chosen_slot_start, id limit ?)
     union all
     (select ${TASK_COLUMNS} from tasks where ${shown} and chosen_slot_end <= ?
       order by chosen_slot_start desc, id desc limit ?)`,
    [...params, limit, ...params, limit],
  );
}
