import { column, type Row, row, type Sql } from '@routinely/db';
import { z } from 'zod';
import { CHANNELS } from '../domain/values.js';
import { type EndpointForSend, endpointsForSend } from './send-context-sql.js';

/**
 * A jsonb object of the send path, checked to be an object but not walked key by key: claims and firings parse
 * every row of a burst (a walk of each payload cost several times the rest of the row), and payloads and task
 * copies are written by this service from events it validated.
 */
const jsonObject = column.json(
  z.custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value)),
);

/** A claimed delivery as the worker reads it. */
const claimedDeliveryRow = row({
  id: column.uuid,
  tenant_id: column.text,
  user_id: column.text,
  reminder_id: column.uuid,
  endpoint_id: column.uuid.nullable(),
  channel: z.enum(CHANNELS),
  event: column.text,
  event_id: column.uuid,
  payload: jsonObject,
  secret_sealed: column.text.nullable(),
  attempts: column.integer,
  max_attempts: column.integer,
  lease_token: column.uuid,
  /** Until when the claim holds the row: a send that could outlast it is not started (ADR 081). */
  lease_until: column.timestamp,
});
export type ClaimedDelivery = Row<typeof claimedDeliveryRow>;

/**
 * Deliveries are claimed in two lanes with their own capacity: in-app and email (`fast`) never wait behind
 * webhooks, whose receivers may hang until the timeout (ADR 043).
 */
export type Lane = 'fast' | 'webhook';

export interface ClaimRequest {
  now: Date;
  leaseUntil: Date;
  leaseToken: string;
  limit: number;
  /** WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT */
  perEndpoint: number;
  /** WEBHOOK_MAX_IN_FLIGHT_PER_USER: one user's endpoints together cannot fill the lane. */
  perUser: number;
  /** WEBHOOK_CIRCUIT_THRESHOLD: an endpoint at it whose pause is over gets one probe at a time. */
  circuitThreshold: number;
  /** Webhook claims: how many endpoints the lane has places for (each takes up to `perEndpoint` places). */
  maxEndpoints?: number;
}

/** A due reminder as the firer reads it (`claimDueReminders`). */
const dueReminderRow = row({
  id: column.uuid,
  tenant_id: column.text,
  user_id: column.text,
  task: jsonObject,
  channels: column.json(z.array(z.enum(CHANNELS))),
  remind_at: column.timestamp,
  reminder_set_at: column.timestamp,
  /** The owner's enabled endpoints subscribed to reminder.fired (none without the webhook channel). */
  endpoints: column.json(z.array(z.object({ id: column.uuid, max_attempts: column.integer }))),
});
export type DueReminder = Row<typeof dueReminderRow>;

/**
 * Locks up to `limit` due reminders for the caller's transaction (FOR UPDATE SKIP LOCKED: the row lock is the
 * lease, ADR 042), which writes their deliveries and marks them fired before it commits. Each comes with the
 * owner's enabled endpoints subscribed to reminder.fired (`endpoints`, oldest first) when it has the webhook
 * channel: one round trip less before a burst's first deliveries (ADR 081).
 */
export async function claimDueReminders(sql: Sql, now: Date, limit: number): Promise<DueReminder[]> {
  return sql.rows(
    dueReminderRow,
    `with due as (
       select id, tenant_id, user_id, task, channels, remind_at, reminder_set_at from reminders
       where status = 'scheduled' and remind_at <= ? order by remind_at limit ? for update skip locked)
     select due.*, coalesce((
       select json_agg(json_build_object('id', e.id, 'max_attempts', e.max_attempts) order by e.created_at)
       from webhook_endpoints e
       where due.channels @> '["webhook"]' and e.tenant_id = due.tenant_id and e.user_id = due.user_id
         and e.enabled and (e.events is null or 'reminder.fired' = any(e.events))), '[]') as endpoints
     from due order by due.remind_at`,
    [now, limit],
  );
}

/** Serializes every webhook claim and top-up across workers: who holds an endpoint is decided one at a time. */
const WEBHOOK_CLAIM_LOCK = 'delivery.webhook-claims';

const RETURNING = `returning id, tenant_id, user_id, reminder_id, endpoint_id, channel, event, event_id, payload,
  secret_sealed, attempts, max_attempts, lease_token, lease_until`;

/** Leases due in-app and email deliveries (FOR UPDATE SKIP LOCKED: workers never wait on each other). */
export async function claimFast(sql: Sql, r: ClaimRequest): Promise<ClaimedDelivery[]> {
  return sql.rows(
    claimedDeliveryRow,
    `update deliveries set lease_until = ?, lease_token = ?
     where id in (
       select id from deliveries
       where status in ('pending', 'failed') and channel <> 'webhook' and next_attempt_at <= ?
         and (lease_until is null or lease_until <= ?)
       order by next_attempt_at limit ? for update skip locked)
     ${RETURNING}`,
    [r.leaseUntil, r.leaseToken, r.now, r.now, r.limit],
  );
}

/**
 * Leases due webhook deliveries a whole endpoint at a time: up to `limit` due rows of each endpoint nobody holds
 * a lease on (one while its circuit is half-open, none while it is open), so the worker that claimed them is the
 * only one sending to that endpoint and paces them itself, `sendsPerEndpoint` at once (ADR 081). A user holds
 * at most `perUser / perEndpoint` endpoints at once, so their sends in flight stay within `perUser`. The counts
 * span every worker, so claims are serialized by a transaction lock: two workers cannot both take an endpoint.
 * `sql` must be a transaction's (`db.transaction`): the lock is held until it ends.
 */
export async function claimWebhooks(sql: Sql, r: ClaimRequest): Promise<ClaimedDelivery[]> {
  await sql.advisoryLock(WEBHOOK_CLAIM_LOCK);
  return sql.rows(
    claimedDeliveryRow,
    `with leased as (
         select endpoint_id, user_id, tenant_id from deliveries
         where channel = 'webhook' and status in ('pending', 'failed') and lease_until > ?),
       user_busy as (
         select tenant_id, user_id, count(distinct endpoint_id)::int as n from leased group by tenant_id, user_id),
       due as (
         select d.id, d.tenant_id, d.user_id, d.endpoint_id, d.next_attempt_at,
           row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.id) as place,
           min(d.next_attempt_at) over (partition by d.endpoint_id) as endpoint_first,
           case when coalesce(e.consecutive_failures, 0) >= ? then 1 else ? end as allowed
         from deliveries d
         left join webhook_endpoints e on e.id = d.endpoint_id
         where d.channel = 'webhook' and d.status in ('pending', 'failed') and d.next_attempt_at <= ?
           and (d.lease_until is null or d.lease_until <= ?)
           and (e.circuit_open_until is null or e.circuit_open_until <= ?)
           and not exists (select 1 from leased l where l.endpoint_id = d.endpoint_id)),
       endpoint_fit as (
         select due.*, coalesce(u.n, 0) as user_endpoints,
           dense_rank() over (
             partition by due.tenant_id, due.user_id order by due.endpoint_first, due.endpoint_id) as user_place
         from due left join user_busy u on u.tenant_id = due.tenant_id and u.user_id = due.user_id
         where due.place <= due.allowed),
       user_fit as (
         select endpoint_fit.*,
           dense_rank() over (order by endpoint_first, endpoint_id) as lane_place
         from endpoint_fit where user_endpoints + user_place <= ?)
       update deliveries set lease_until = ?, lease_token = ?
       where id in (select id from user_fit where lane_place <= ? order by next_attempt_at, id limit ?)
       ${RETURNING}`,
    [
      r.now,
      r.circuitThreshold,
      r.limit,
      r.now,
      r.now,
      r.now,
      Math.max(1, Math.floor(r.perUser / r.perEndpoint)),
      r.leaseUntil,
      r.leaseToken,
      r.maxEndpoints ?? r.limit,
      r.limit,
    ],
  );
}

/** A claim of one endpoint the caller holds (its limits as in a claim). */
export interface TopUpRequest extends Omit<ClaimRequest, 'maxEndpoints'> {
  endpointId: string;
  /** The lease tokens of the holder's claims: its own leases do not make the endpoint held by someone else. */
  heldTokens: string[];
}

/**
 * Adds the due rows of an endpoint the caller holds to its hold, before the hold runs dry, so the endpoint's
 * sends never wait for a claim (ADR 081). It is a claim of that one endpoint under the claims' lock, with the
 * claim's rules, except that the caller's own leases do not count as another holder's: no other worker may hold
 * a live lease on the endpoint; if the caller's own leases have all ended meanwhile, the owner's other held
 * endpoints must leave room, as for a fresh claim; a half-open or open circuit gets no top-up (its single probe
 * goes through a claim).
 *
 * `endpoint` is checked once (`materialized`): inlined, it was joined to every due row, and each join scanned the
 * `leased` rows again; in a burst of 1,000 (580 due, 118 leased) that took 13 of a top-up's 32 ms (ADR 081).
 * `sql` must be a transaction's (`db.transaction`), as for a claim.
 */
export async function topUpEndpoint(
  sql: Sql,
  r: TopUpRequest,
): Promise<{ rows: ClaimedDelivery[]; endpoint: EndpointForSend | null }> {
  await sql.advisoryLock(WEBHOOK_CLAIM_LOCK);
  const rows = await sql.rows(
    claimedDeliveryRow,
    `with leased as (
         select endpoint_id, tenant_id, user_id, lease_token = any(?::uuid[]) as mine from deliveries
         where channel = 'webhook' and status in ('pending', 'failed') and lease_until > ?),
       endpoint as materialized (
         select e.id from webhook_endpoints e
         where e.id = ? and e.consecutive_failures < ?
           and (e.circuit_open_until is null or e.circuit_open_until <= ?)
           and not exists (select 1 from leased l where l.endpoint_id = e.id and not l.mine)
           and (
             exists (select 1 from leased l where l.endpoint_id = e.id and l.mine)
             or (select count(distinct l.endpoint_id) from leased l
                 where l.tenant_id = e.tenant_id and l.user_id = e.user_id) < ?))
       update deliveries set lease_until = ?, lease_token = ?
       where id in (
         select d.id from deliveries d join endpoint on endpoint.id = d.endpoint_id
         where d.channel = 'webhook' and d.status in ('pending', 'failed') and d.next_attempt_at <= ?
           and (d.lease_until is null or d.lease_until <= ?)
         order by d.next_attempt_at, d.id limit ? for update of d skip locked)
       ${RETURNING}`,
    [
      r.heldTokens,
      r.now,
      r.endpointId,
      r.circuitThreshold,
      r.now,
      Math.max(1, Math.floor(r.perUser / r.perEndpoint)),
      r.leaseUntil,
      r.leaseToken,
      r.now,
      r.now,
      r.limit,
    ],
  );
  if (rows.length === 0) return { rows, endpoint: null };
  // Read again with each top-up: a changed URL, secret or state applies from the next rows on.
  const endpoint = (await endpointsForSend(sql, rows)).get(r.endpointId) ?? null;
  return { rows, endpoint };
}

/**
 * Gives claimed deliveries back before their lease runs out (a worker that stopped sending to their endpoint):
 * they are due again at once for any worker, under the claim's rules (a circuit that opened meanwhile holds them).
 */
export async function releaseLeases(sql: Sql, ids: string[], leaseToken: string): Promise<void> {
  if (ids.length === 0) return;
  await sql.run(
    'update deliveries set lease_until = null, lease_token = null where id = any(?::uuid[]) and lease_token = ?',
    [ids, leaseToken],
  );
}

const nextDueRow = row({ next: column.timestamp.nullable() });

/** When the earliest scheduled reminder is due (the reminder pacer sleeps until then), null when none is. */
export async function nextReminderDue(sql: Sql): Promise<Date | null> {
  const due = await sql.first(nextDueRow, `select min(remind_at) as next from reminders where status = 'scheduled'`);
  return due?.next ?? null;
}

/** When the earliest pending or failed delivery can be tried (beyond its lease), null when none can. */
export async function nextDeliveryDue(sql: Sql): Promise<Date | null> {
  const due = await sql.first(
    nextDueRow,
    `select min(greatest(next_attempt_at, coalesce(lease_until, next_attempt_at))) as next
     from deliveries where status in ('pending', 'failed')`,
  );
  return due?.next ?? null;
}
