import { column, type Row, row, type Sql } from '@routinely/db';
import { lockUserFor } from './user-locks-sql.js';

/** Amounts are read as float8 (`::float8` in the statements), which the driver answers as numbers. */
const quotaRow = row({
  soft_cap_usd: column.integer,
  hard_cap_usd: column.integer,
  /** Null only for the defaults of a user without a row (DEFAULT_QUOTA). */
  updated_at: column.timestamp.nullable(),
});
export type QuotaRow = Row<typeof quotaRow>;

/** A day's (or a provider's) calls; token counts are read as float8 like the amounts. */
const dailyRow = row({
  calls: column.integer,
  input_tokens: column.integer,
  output_tokens: column.integer,
  cost_usd: column.integer,
});

const totalRow = row({ total: column.integer });

const QUOTA = 'soft_cap_usd::float8 as soft_cap_usd, hard_cap_usd::float8 as hard_cap_usd, updated_at';

export const findQuota = (sql: Sql, userId: string) =>
  sql.first(quotaRow, `select ${QUOTA} from user_quotas where user_id = ?`, [userId]);

export const upsertQuota = (
  sql: Sql,
  row: { userId: string; tenantId: string; soft: number; hard: number; at: Date },
) =>
  sql.first(
    quotaRow,
    `insert into user_quotas (user_id, tenant_id, soft_cap_usd, hard_cap_usd, updated_at) values (?, ?, ?, ?, ?)
     on conflict (user_id) do update set soft_cap_usd = excluded.soft_cap_usd, hard_cap_usd = excluded.hard_cap_usd,
       updated_at = excluded.updated_at
     returning ${QUOTA}`,
    [row.userId, row.tenantId, row.soft, row.hard, row.at],
  );

/** Serialises quota decisions of one user (check-and-reserve) until the transaction ends. */
export const lockUser = (sql: Sql, userId: string) => lockUserFor(sql, 'quota', userId);

export async function insertLedger(
  sql: Sql,
  e: {
    id: string;
    tenantId: string;
    userId: string;
    runId: string | null;
    provider: string;
    model: string;
    inputTokens: number;
    outputTokens: number;
    costUsd: number;
    localDate: string;
    at: Date;
  },
): Promise<void> {
  await sql.run(
    `insert into usage_ledger (id, tenant_id, user_id, run_id, provider, model, input_tokens, output_tokens, cost_usd,
       local_date, at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::date, ?)`,
    [
      e.id,
      e.tenantId,
      e.userId,
      e.runId,
      e.provider,
      e.model,
      e.inputTokens,
      e.outputTokens,
      e.costUsd,
      e.localDate,
      e.at,
    ],
  );
}

/** One atomic increment of the day's rollup: concurrent recordings add up, none overwrites another. */
export const incrementDaily = (
  sql: Sql,
  e: {
    tenantId: string;
    userId: string;
    localDate: string;
    inputTokens: number;
    outputTokens: number;
    costUsd: number;
  },
) =>
  sql.first(
    dailyRow.extend({ soft_notified_at: column.timestamp.nullable() }),
    `insert into usage_daily as d (user_id, local_date, tenant_id, calls, input_tokens, output_tokens, cost_usd)
     values (?, ?::date, ?, 1, ?, ?, ?)
     on conflict (user_id, local_date) do update set calls = d.calls + excluded.calls,
       input_tokens = d.input_tokens + excluded.input_tokens, output_tokens = d.output_tokens + excluded.output_tokens,
       cost_usd = d.cost_usd + excluded.cost_usd
     returning calls, input_tokens::float8 as input_tokens, output_tokens::float8 as output_tokens,
       cost_usd::float8 as cost_usd, soft_notified_at`,
    [e.userId, e.localDate, e.tenantId, e.inputTokens, e.outputTokens, e.costUsd],
  );

/** True for exactly one caller per user and day: the one that first marks the soft cap as notified. */
export async function claimSoftNotice(sql: Sql, userId: string, localDate: string, at: Date): Promise<boolean> {
  const rows = await sql.rows(
    row({ user_id: column.uuid }),
    `update usage_daily set soft_notified_at = ? where user_id = ? and local_date = ?::date and soft_notified_at is null
     returning user_id`,
    [at, userId, localDate],
  );
  return rows.length === 1;
}

export const findDaily = (sql: Sql, userId: string, localDate: string) =>
  sql.first(
    dailyRow,
    `select calls, input_tokens::float8 as input_tokens, output_tokens::float8 as output_tokens,
       cost_usd::float8 as cost_usd from usage_daily where user_id = ? and local_date = ?::date`,
    [userId, localDate],
  );

export const dailyCostsOf = (sql: Sql, userIds: readonly string[], localDates: readonly string[]) =>
  sql.rows(
    row({ user_id: column.uuid, cost_usd: column.integer }),
    `select d.user_id, d.cost_usd::float8 as cost_usd from usage_daily d
     join unnest(?::uuid[], ?::date[]) as want(user_id, local_date)
       on d.user_id = want.user_id and d.local_date = want.local_date`,
    [userIds, localDates],
  );

export const providerBreakdown = (sql: Sql, userId: string, localDate: string) =>
  sql.rows(
    row({ provider: column.text, model: column.text, ...dailyRow.shape }),
    `select provider, model, count(*)::int as calls, sum(input_tokens)::float8 as input_tokens,
       sum(output_tokens)::float8 as output_tokens, sum(cost_usd)::float8 as cost_usd
     from usage_ledger where user_id = ? and local_date = ?::date group by provider, model order by provider, model`,
    [userId, localDate],
  );

export const monthDays = (sql: Sql, userId: string, first: string, last: string) =>
  sql.rows(
    dailyRow.extend({ date: column.text }),
    `select to_char(local_date, 'YYYY-MM-DD') as date, calls, input_tokens::float8 as input_tokens,
       output_tokens::float8 as output_tokens, cost_usd::float8 as cost_usd
     from usage_daily where user_id = ? and local_date between ?::date and ?::date`,
    [userId, first, last],
  );

export const openReservations = (sql: Sql, userId: string, now: Date) =>
  sql.first(
    totalRow,
    'select coalesce(sum(amount_usd), 0)::float8 as total from quota_reservations where user_id = ? and expires_at > ?',
    [userId, now],
  );

export async function insertReservation(
  sql: Sql,
  r: { id: string; tenantId: string; userId: string; amountUsd: number; expiresAt: Date },
): Promise<void> {
  await sql.run(
    'insert into quota_reservations (id, tenant_id, user_id, amount_usd, expires_at) values (?, ?, ?, ?, ?)',
    [r.id, r.tenantId, r.userId, r.amountUsd, r.expiresAt],
  );
}

/** Releases one reservation and sweeps the user's expired ones. */
export async function releaseReservation(sql: Sql, userId: string, id: string | null, now: Date): Promise<void> {
  await sql.run('delete from quota_reservations where user_id = ? and (id = ? or expires_at <= ?)', [userId, id, now]);
}

export const tenantUsers = (sql: Sql, tenantId: string, limit: number, offset: number) =>
  sql.rows(
    row({
      user_id: column.uuid,
      email: column.text,
      timezone: column.text.nullable(),
      settings_timezone: column.text.nullable(),
    }),
    `select k.user_id, k.email, k.timezone, s.timezone as settings_timezone
     from known_users k left join user_settings s on s.user_id = k.user_id
     where k.tenant_id = ? order by k.email, k.user_id limit ? offset ?`,
    [tenantId, limit, offset],
  );

export const countTenantUsers = (sql: Sql, tenantId: string) =>
  sql.first(totalRow, 'select count(*)::int as total from known_users where tenant_id = ?', [tenantId]);

export const quotasOf = (sql: Sql, userIds: readonly string[]) =>
  sql.rows(
    quotaRow.extend({ user_id: column.uuid }),
    `select user_id, ${QUOTA} from user_quotas where user_id = any(?::uuid[])`,
    [userIds],
  );
