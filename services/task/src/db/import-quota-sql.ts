import { column, row, type Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';

const importLimitRow = row({
  user_id: column.uuid,
  per_hour: column.integer,
  per_day: column.integer,
  updated_at: column.timestamp,
});

const importUseCountsRow = row({
  user_id: column.uuid,
  hour: column.integer,
  day: column.integer,
  /** The oldest use inside each window: when it leaves the window, a use is free again. */
  oldest_hour: column.timestamp.nullable(),
  oldest_day: column.timestamp.nullable(),
});

export const findImportLimits = (sql: Sql, tenantId: string, userIds: readonly string[]) =>
  sql.rows(
    importLimitRow,
    'select user_id, per_hour, per_day, updated_at from import_limits where tenant_id = ? and user_id = any(?::uuid[])',
    [tenantId, userIds],
  );

export const upsertImportLimits = (
  sql: Sql,
  row: { tenantId: string; userId: string; perHour: number; perDay: number; at: Date },
) =>
  sql.first(
    importLimitRow,
    `insert into import_limits (tenant_id, user_id, per_hour, per_day, updated_at) values (?, ?, ?, ?, ?)
     on conflict (tenant_id, user_id) do update set per_hour = excluded.per_hour, per_day = excluded.per_day,
       updated_at = excluded.updated_at
     returning user_id, per_hour, per_day, updated_at`,
    [row.tenantId, row.userId, row.perHour, row.perDay, row.at],
  );

/** Each user's imports in the rolling hour and day before `now`. */
export const countImportUses = (sql: Sql, tenantId: string, userIds: readonly string[], now: Date) =>
  sql.rows(
    importUseCountsRow,
    `select user_id,
            count(*) filter (where at > ?)::int as hour, count(*)::int as day,
            min(at) filter (where at > ?) as oldest_hour, min(at) as oldest_day
     from import_usage
     where tenant_id = ? and user_id = any(?::uuid[]) and at > ?
     group by user_id`,
    [
      new Date(now.getTime() - HOUR_MS),
      new Date(now.getTime() - HOUR_MS),
      tenantId,
      userIds,
      new Date(now.getTime() - DAY_MS),
    ],
  );

export const insertImportUse = (sql: Sql, use: Owner & { id: string; kind: 'sync' | 'job'; at: Date }) =>
  sql.run('insert into import_usage (id, tenant_id, user_id, kind, at) values (?, ?, ?, ?, ?)', [
    use.id,
    use.tenantId,
    use.userId,
    use.kind,
    use.at,
  ]);

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
