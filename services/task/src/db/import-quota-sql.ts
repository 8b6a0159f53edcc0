import type { Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';

export interface ImportLimitRow {
  user_id: string;
  per_hour: number;
  per_day: number;
  /** timestamptz as the driver hands it back (a string or a Date): read it with `new Date(...)`. */
  updated_at: string | Date;
}

export interface ImportUseCounts {
  user_id: string;
  hour: number;
  day: number;
  /** The oldest use inside each window: when it leaves the window, a use is free again. */
  oldest_hour: string | Date | null;
  oldest_day: string | Date | null;
}

export const findImportLimits = (sql: Sql, tenantId: string, userIds: readonly string[]) =>
  sql.rows<ImportLimitRow>(
    'select user_id, per_hour, per_day, updated_at from import_limits where tenant_id = ? and user_id = any(?::uuid[])',
    [tenantId, userIds],
  );

export const upsertImportLimits = (
  sql: Sql,
  row: { tenantId: string; userId: string; perHour: number; perDay: number; at: Date },
) =>
  sql.first<ImportLimitRow>(
    `insert into import_limits (tenant_id, user_id, per_hour, per_day, updated_at) values (?, ?, ?, ?, ?)
     on conflict (tenant_id, user_id) do update set per_hour = excluded.per_hour, per_day = excluded.per_day,
       updated_at = excluded.updated_at
     returning user_id, per_hour, per_day, updated_at`,
    [row.tenantId, row.userId, row.perHour, row.perDay, row.at],
  );

/** Each user's imports in the rolling hour and day before `now`. */
export const countImportUses = (sql: Sql, tenantId: string, userIds: readonly string[], now: Date) =>
  sql.rows<ImportUseCounts>(
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
  sql.rows('insert into import_usage (id, tenant_id, user_id, kind, at) values (?, ?, ?, ?, ?)', [
    use.id,
    use.tenantId,
    use.userId,
    use.kind,
    use.at,
  ]);

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
