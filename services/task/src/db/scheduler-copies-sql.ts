import { column, type Row, row, type Sql } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { z } from 'zod';

/** The copies of the scheduler's figures the dashboard and the health page read (ADR 056). */

/** A day's total only grows: the larger copy wins, so a late redelivery cannot lower it. */
export const rememberSpendDay = (sql: Sql, owner: Owner, date: string, spendUsd: number) =>
  sql.run(
    `insert into spend_days (tenant_id, user_id, local_date, spend_usd) values (?, ?, ?::date, ?)
     on conflict (tenant_id, user_id, local_date) do update set spend_usd = greatest(spend_days.spend_usd, excluded.spend_usd)`,
    [owner.tenantId, owner.userId, date, spendUsd],
  );

export async function findSpendDay(sql: Sql, owner: Owner, date: string): Promise<number> {
  const day = await sql.first(
    row({ spend_usd: column.integer }),
    'select spend_usd::float8 as spend_usd from spend_days where tenant_id = ? and user_id = ? and local_date = ?::date',
    [owner.tenantId, owner.userId, date],
  );
  return day?.spend_usd ?? 0;
}

/** The tenant '' rows: the providers the scheduler is configured with. */
export const CONFIGURED = '';

const providerStatusRow = row({
  tenant_id: column.text,
  provider: column.text,
  model: column.text.nullable(),
  available: column.boolean.nullable(),
  last_outcome: z.enum(['ok', 'error']).nullable(),
  last_error: column.text.nullable(),
  at: column.timestamp,
});
export type ProviderStatusRow = Row<typeof providerStatusRow>;

/** The newer report of a (tenant, provider) wins; an older one arriving late changes nothing. */
export const rememberProviderStatus = (sql: Sql, status: Omit<ProviderStatusRow, 'at'> & { at: string }) =>
  sql.run(
    `insert into model_provider_status (tenant_id, provider, model, available, last_outcome, last_error, at)
     values (?, ?, ?, ?, ?, ?, ?)
     on conflict (tenant_id, provider) do update set model = excluded.model, available = excluded.available,
       last_outcome = excluded.last_outcome, last_error = excluded.last_error, at = excluded.at
     where model_provider_status.at <= excluded.at`,
    [
      status.tenant_id,
      status.provider,
      status.model,
      status.available,
      status.last_outcome,
      status.last_error,
      status.at,
    ],
  );

/** The configured providers and the tenant's last call of each. */
export const providerStatuses = (sql: Sql, tenantId: string) =>
  sql.rows(
    providerStatusRow,
    'select tenant_id, provider, model, available, last_outcome, last_error, at from model_provider_status where tenant_id in (?, ?)',
    [CONFIGURED, tenantId],
  );

/** One more dead letter the scheduler reported for (consumer, type); the newest time wins (reports may cross). */
export const rememberSchedulerDeadLetter = (sql: Sql, report: { consumer: string; type: string; at: string }) =>
  sql.run(
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
    ? sql.run('delete from scheduler_dead_letters where consumer = ? and type = ?', [report.consumer, report.type])
    : sql.run('update scheduler_dead_letters set count = ?, last_at = ? where consumer = ? and type = ?', [
        report.remaining,
        report.last_at,
        report.consumer,
        report.type,
      ]);

const deadLetterRow = row({
  consumer: column.text,
  type: column.text,
  count: column.integer,
  last_at: column.timestamp,
});

/** The scheduler's dead letters reported newer than `since`, per consumer and type. */
export async function schedulerDeadLettersSince(sql: Sql, since: Date) {
  const rows = await sql.rows(
    deadLetterRow,
    'select consumer, type, count, last_at from scheduler_dead_letters where last_at > ? order by consumer, type',
    [since],
  );
  return rows.map((letter) => ({
    consumer: letter.consumer,
    type: letter.type,
    count: letter.count,
    lastAt: letter.last_at,
  }));
}
