import { changedEntries, column, insertRow, row, type Sql, setClause } from '@routinely/db';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { CHANNELS, type Channel, DELIVERY_STATUSES, type DeliveryStatus } from '../domain/values.js';
import { countRow } from './counts-sql.js';
import { type UnboundSecret, unboundSecretRow } from './endpoints-sql.js';
import type { DeliveryRow } from './entities.js';

/** A delivery about to be written: the columns a new delivery sets; the rest start empty (pending, no tries). */
export interface NewDelivery {
  id: string;
  tenant_id: string;
  user_id: string;
  reminder_id: string;
  endpoint_id: string | null;
  channel: string;
  event: string;
  event_id: string;
  payload: Record<string, unknown>;
  max_attempts: number;
  /** Due at once: also its created_at and updated_at. */
  created_at: Date;
}

/**
 * New deliveries from one typed array per column: PostgreSQL parses each value once with its own type's input
 * function. The JSON form used before (`json_populate_recordset`) parsed every row's JSON, then each field
 * again, and cost PostgreSQL 70-90 µs of CPU per row of a firing against 30-55 here (ADR 081).
 */
const INSERT_NEW = `insert into deliveries
    (id, tenant_id, user_id, reminder_id, endpoint_id, channel, event, event_id, payload, max_attempts,
     status, attempts, next_attempt_at, created_at, updated_at)
  select id, tenant_id, user_id, reminder_id, endpoint_id, channel, event, event_id, payload, max_attempts,
    'pending', 0, at, at, at
  from unnest(?::uuid[], ?::text[], ?::text[], ?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::uuid[], ?::jsonb[],
    ?::int[], ?::timestamptz[])
    as n(id, tenant_id, user_id, reminder_id, endpoint_id, channel, event, event_id, payload, max_attempts, at)`;

/** The bindings of INSERT_NEW: one array per column (arrays bind as PostgreSQL arrays). */
function columnsOf(rows: readonly NewDelivery[]): unknown[][] {
  return [
    rows.map((r) => r.id),
    rows.map((r) => r.tenant_id),
    rows.map((r) => r.user_id),
    rows.map((r) => r.reminder_id),
    rows.map((r) => r.endpoint_id),
    rows.map((r) => r.channel),
    rows.map((r) => r.event),
    rows.map((r) => r.event_id),
    rows.map((r) => JSON.stringify(r.payload)),
    rows.map((r) => r.max_attempts),
    rows.map((r) => r.created_at),
  ];
}

export async function insertDeliveries(sql: Sql, rows: readonly NewDelivery[]): Promise<void> {
  if (rows.length === 0) return;
  await sql.run(INSERT_NEW, columnsOf(rows));
}

/**
 * Records a firing in one statement: the reminders' deliveries, the reminders marked fired, and the NOTIFY that
 * wakes other processes' delivery workers on commit (when there are deliveries). One round trip instead of three
 * before the first deliveries of a burst can be claimed (ADR 081).
 */
export async function recordFiring(
  sql: Sql,
  reminderIds: readonly string[],
  deliveries: readonly NewDelivery[],
  now: Date,
  wakeupChannel: string,
): Promise<void> {
  await sql.run(
    `with inserted as (${INSERT_NEW} returning id),
     fired as (
       update reminders set status = 'fired', fired_at = ?, updated_at = ? where id = any(?::uuid[]) returning id)
     select pg_notify(?, 'deliveries') where exists (select 1 from inserted)`,
    [...columnsOf(deliveries), now, now, reminderIds, wakeupChannel],
  );
}

/** The outcome of one try as the delivery row keeps it. */
export interface TryOutcome {
  status: 'sent' | 'failed' | 'dead';
  nextAttemptAt: Date | null;
  statusCode: number | null;
  error: string | null;
  at: Date;
  deliveredAt: Date | null;
  secretSealed: string | null;
}

/**
 * Writes a try's outcome, fenced by the lease token: false when the lease was lost to another worker (whose
 * outcome wins) and nothing was written.
 */
export async function recordTryOutcome(sql: Sql, id: string, leaseToken: string, o: TryOutcome): Promise<boolean> {
  const written = await sql.run(
    `update deliveries set status = ?, attempts = attempts + 1, next_attempt_at = ?, lease_until = null,
       lease_token = null, last_status_code = ?, last_error = ?, last_attempt_at = ?, delivered_at = ?,
       secret_sealed = coalesce(secret_sealed, ?), updated_at = ?
     where id = ? and lease_token = ? returning id`,
    [o.status, o.nextAttemptAt, o.statusCode, o.error, o.at, o.deliveredAt, o.secretSealed, o.at, id, leaseToken],
  );
  return written > 0;
}

/** Whether the reminder already has (or had) an email delivery. */
export async function hasEmailDelivery(sql: Sql, reminderId: string): Promise<boolean> {
  const found = await sql.run(`select 1 from deliveries where reminder_id = ? and channel = 'email' limit 1`, [
    reminderId,
  ]);
  return found > 0;
}

/** A successful webhook try, recorded in a group (SentRecorder). */
export interface SentTry {
  id: string;
  leaseToken: string;
  statusCode: number | null;
  at: Date;
  secretSealed: string | null;
  latencyMs: number;
}

/**
 * Records a group of successful webhook tries in one statement: each delivery sent (fenced by its lease
 * token), its attempts-log row (only where the lease still held), and the endpoints' failure counts reset
 * only where they are set, so concurrent successes never queue on an endpoint's row lock (ADR 081).
 */
export async function recordSentTries(sql: Sql, tries: readonly SentTry[]): Promise<void> {
  await sql.run(
    `with v as (
       select * from unnest(?::uuid[], ?::uuid[], ?::int[], ?::timestamptz[], ?::text[], ?::uuid[], ?::int[])
         as v(id, lease_token, status_code, at, secret_sealed, attempt_id, latency_ms)),
     sent as (
       update deliveries d set status = 'sent', attempts = d.attempts + 1, next_attempt_at = null,
         lease_until = null, lease_token = null, last_status_code = v.status_code, last_error = null,
         last_attempt_at = v.at, delivered_at = v.at, secret_sealed = coalesce(d.secret_sealed, v.secret_sealed),
         updated_at = v.at
       from v where d.id = v.id and d.lease_token = v.lease_token
       returning d.id, d.tenant_id, d.user_id, d.endpoint_id, d.event, d.event_id, d.attempts, v.attempt_id,
         v.at, v.status_code, v.latency_ms),
     logged as (
       insert into delivery_attempts
         (id, tenant_id, user_id, delivery_id, endpoint_id, event, event_id, attempt, at, status_code, error,
          latency_ms)
       select attempt_id, tenant_id, user_id, id, endpoint_id, event, event_id, attempts, at, status_code, null,
         latency_ms
       from sent)
     update webhook_endpoints set consecutive_failures = 0, circuit_open_until = null
     where id in (select endpoint_id from sent) and (consecutive_failures <> 0 or circuit_open_until is not null)`,
    [
      tries.map((t) => t.id),
      tries.map((t) => t.leaseToken),
      tries.map((t) => t.statusCode),
      tries.map((t) => t.at),
      tries.map((t) => t.secretSealed),
      tries.map(() => uuidv7()),
      tries.map((t) => t.latencyMs),
    ], // arrays bind as PostgreSQL arrays
  );
}

/** Deliveries whose secret (signed ahead for their retries) is still sealed in the unbound `v0` form. */
export function unboundDeliverySecrets(sql: Sql): Promise<UnboundSecret[]> {
  return sql.rows(
    unboundSecretRow,
    `select id, endpoint_id as owner, secret_sealed from deliveries where secret_sealed like 'v0.%'`,
  );
}

/** Replaces a delivery's sealed secret, unless it changed since it was read (`was`). */
export async function resealDeliverySecret(sql: Sql, id: string, sealed: string, was: string): Promise<void> {
  await sql.run('update deliveries set secret_sealed = ? where id = ? and secret_sealed = ?', [sealed, id, was]);
}

/** The columns of a delivery under their property names. */
const DELIVERY = `id, tenant_id as "tenantId", user_id as "userId", reminder_id as "reminderId",
  endpoint_id as "endpointId", channel, event, event_id as "eventId", payload, secret_sealed as "secretSealed",
  status, attempts, max_attempts as "maxAttempts", next_attempt_at as "nextAttemptAt", lease_until as "leaseUntil",
  lease_token as "leaseToken", last_status_code as "lastStatusCode", last_error as "lastError",
  last_attempt_at as "lastAttemptAt", delivered_at as "deliveredAt", created_at as "createdAt",
  updated_at as "updatedAt"`;

const deliveryRow = row({
  id: column.uuid,
  tenantId: column.text,
  userId: column.text,
  reminderId: column.uuid,
  endpointId: column.uuid.nullable(),
  channel: z.enum(CHANNELS),
  event: column.text,
  eventId: column.uuid,
  payload: column.json(z.record(z.string(), z.unknown())),
  secretSealed: column.text.nullable(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: column.integer,
  maxAttempts: column.integer,
  nextAttemptAt: column.timestamp.nullable(),
  leaseUntil: column.timestamp.nullable(),
  leaseToken: column.uuid.nullable(),
  lastStatusCode: column.integer.nullable(),
  lastError: column.text.nullable(),
  lastAttemptAt: column.timestamp.nullable(),
  deliveredAt: column.timestamp.nullable(),
  createdAt: column.timestamp,
  updatedAt: column.timestamp,
});

/** What the delivery log can be narrowed to. */
export interface DeliveryFilter {
  status?: DeliveryStatus | undefined;
  channel?: Channel | undefined;
  reminder_id?: string | undefined;
  event_id?: string | undefined;
}

/** A page of the owner's deliveries, newest first, with how many match in all. */
export async function ownerDeliveries(
  sql: Sql,
  owner: { tenantId: string; userId: string },
  filter: DeliveryFilter,
  page: { limit: number; offset: number },
): Promise<{ items: DeliveryRow[]; total: number }> {
  const where = ['tenant_id = ?', 'user_id = ?'];
  const params: unknown[] = [owner.tenantId, owner.userId];
  for (const [column, value] of [
    ['status', filter.status],
    ['channel', filter.channel],
    ['reminder_id', filter.reminder_id],
    ['event_id', filter.event_id],
  ] as const) {
    if (!value) continue;
    where.push(`${column} = ?`);
    params.push(value);
  }
  const matching = `from deliveries where ${where.join(' and ')}`;
  const [rows, count] = await Promise.all([
    sql.rows(deliveryRow, `select ${DELIVERY} ${matching} order by created_at desc, id desc limit ? offset ?`, [
      ...params,
      page.limit,
      page.offset,
    ]),
    sql.first(countRow, `select count(*)::int as n ${matching}`, params),
  ]);
  return { items: rows, total: count?.n ?? 0 };
}

/** The owner's delivery `id`; undefined when there is none (or it is someone else's). */
export async function ownerDelivery(
  sql: Sql,
  owner: { tenantId: string; userId: string },
  id: string,
): Promise<DeliveryRow | undefined> {
  return sql.first(deliveryRow, `select ${DELIVERY} from deliveries where id = ? and tenant_id = ? and user_id = ?`, [
    id,
    owner.tenantId,
    owner.userId,
  ]);
}

/** The tenant's delivery `id` (whoever's it is); undefined when there is none. */
export async function tenantDelivery(sql: Sql, tenantId: string, id: string): Promise<DeliveryRow | undefined> {
  return sql.first(deliveryRow, `select ${DELIVERY} from deliveries where id = ? and tenant_id = ?`, [id, tenantId]);
}

/** Writes a delivery with every column as given (a requeue's fresh copy). */
export function insertDelivery(sql: Sql, r: DeliveryRow): Promise<void> {
  return insertRow(sql, 'deliveries', r, { payload: 'jsonb' });
}

/** Writes the columns of `change` that differ from `row` as it was read (see `changed-columns.ts` of @routinely/db). */
export async function writeDeliveryChange(sql: Sql, row: DeliveryRow, change: Partial<DeliveryRow>): Promise<void> {
  const entries = changedEntries(row, change);
  if (entries.length === 0) return;
  const { set, bindings } = setClause(entries, { payload: 'jsonb' });
  await sql.run(`update deliveries set ${set} where id = ? and tenant_id = ?`, [...bindings, row.id, row.tenantId]);
}
