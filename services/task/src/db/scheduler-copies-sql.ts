import type { Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';

/** The copies of the scheduler's figures the dashboard and the health page read (ADR 056). */

/** A day's total only grows: the larger copy wins, so a late redelivery cannot lower it. */
export const rememberSpendDay = (sql: Sql, owner: Owner, date: string, spendUsd: number) =>
  sql.rows(
    `insert into spend_days (tenant_id, user_id, local_date, spend_usd) values (?, ?, ?::date, ?)
     on conflict (tenant_id, user_id, local_date) do update set spend_usd = greatest(spend_days.spend_usd, excluded.spend_usd)`,
    [owner.tenantId, owner.userId, date, spendUsd],
  );

export async function findSpendDay(sql: Sql, owner: Owner, date: string): Promise<number> {
  const row = await sql.first<{ spend_usd: number }>(
    'select spend_usd::float8 as spend_usd from spend_days where tenant_id = ? and user_id = ? and local_date = ?::date',
    [owner.tenantId, owner.userId, date],
  );
  return row?.spend_usd ?? 0;
}

/** The tenant '' rows: the providers the scheduler is configured with. */
export const CONFIGURED = '';

export interface ProviderStatusRow {
  tenant_id: string;
  provider: string;
  model: string | null;
  available: boolean | null;
  last_outcome: 'ok' | 'error' | null;
  last_error: string | null;
  /** ISO-8601 as the driver hands timestamptz back (a string or a Date): read it with `new Date(at)`. */
  at: string | Date;
}

/** The newer report of a (tenant, provider) wins; an older one arriving late changes nothing. */
export const rememberProviderStatus = (sql: Sql, row: ProviderStatusRow) =>
  sql.rows(
    `insert into model_provider_status (tenant_id, provider, model, available, last_outcome, last_error, at)
     values (?, ?, ?, ?, ?, ?, ?)
     on conflict (tenant_id, provider) do update set model = excluded.model, available = excluded.available,
       last_outcome = excluded.last_outcome, last_error = excluded.last_error, at = excluded.at
     where model_provider_status.at <= excluded.at`,
    [row.tenant_id, row.provider, row.model, row.available, row.last_outcome, row.last_error, row.at],
  );

/** The configured providers and the tenant's last call of each. */
export const providerStatuses = (sql: Sql, tenantId: string) =>
  sql.rows<ProviderStatusRow>(
    'select tenant_id, provider, model, available, last_outcome, last_error, at from model_provider_status where tenant_id in (?, ?)',
    [CONFIGURED, tenantId],
  );

/** One more dead letter the scheduler reported for (consumer, type); the newest time wins (reports may cross). */
export const rememberSchedulerDeadLetter = (sql: Sql, report: { consumer: string; type: string; at: string }) =>
  sql.rows(
    `insert into scheduler_dead_letters as stored (consumer, type, count, last_at) values (?, ?, 1, ?)
     on conflict (consumer, type) do update set count = stored.count + 1, last_at = greatest(stored.last_at, excluded.last_at)`,
    [report.consumer, report.type, report.at],
  );

/**
 * The scheduler replayed a letter of (consumer, type): its copy takes what is left there (gone when none is),
 * so a replay clears the health page at once instead of an hour later.
 */
export const replaceSchedulerDeadLetters = (
  sql: Sql,
  report: { consumer: string; type: string; remaining: number; last_at: string | null },
) =>
  report.remaining === 0 || report.last_at === null
    ? sql.rows('delete from scheduler_dead_letters where consumer = ? and type = ?', [report.consumer, report.type])
    : sql.rows('update scheduler_dead_letters set count = ?, last_at = ? where consumer = ? and type = ?', [
        report.remaining,
        report.last_at,
        report.consumer,
        report.type,
      ]);

/** The scheduler's dead letters reported newer than `since`, per consumer and type. */
export async function schedulerDeadLettersSince(sql: Sql, since: Date) {
  const rows = await sql.rows<{ consumer: string; type: string; count: number; last_at: string | Date }>(
    'select consumer, type, count, last_at from scheduler_dead_letters where last_at > ? order by consumer, type',
    [since],
  );
  return rows.map((row) => ({
    consumer: row.consumer,
    type: row.type,
    count: row.count,
    lastAt: new Date(row.last_at),
  }));
}
