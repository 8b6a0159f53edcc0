import type { Knex } from '@mikro-orm/knex';
import type { ClaimedDelivery } from '../workers/attempt.js';

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
}

/**
 * Locks up to `limit` due reminders for the caller's transaction (FOR UPDATE SKIP LOCKED: the row lock is the
 * lease, ADR 042), which writes their deliveries and marks them fired before it commits.
 */
export async function claimDueReminders<Row>(trx: Knex, now: Date, limit: number): Promise<Row[]> {
  const { rows } = await trx.raw<{ rows: Row[] }>(
    `select id, tenant_id, user_id, task, channels, remind_at, reminder_set_at from reminders
     where status = 'scheduled' and remind_at <= ? order by remind_at limit ? for update skip locked`,
    [now, limit],
  );
  return rows;
}

const RETURNING = `returning id, tenant_id, user_id, reminder_id, endpoint_id, channel, event, event_id, payload,
  secret_sealed, attempts, max_attempts, lease_token`;

/** Leases due in-app and email deliveries (FOR UPDATE SKIP LOCKED: workers never wait on each other). */
export async function claimFast(knex: Knex, r: ClaimRequest): Promise<ClaimedDelivery[]> {
  const { rows } = await knex.raw<{ rows: ClaimedDelivery[] }>(
    `update deliveries set lease_until = ?, lease_token = ?
     where id in (
       select id from deliveries
       where status in ('pending', 'failed') and channel <> 'webhook' and next_attempt_at <= ?
         and (lease_until is null or lease_until <= ?)
       order by next_attempt_at limit ? for update skip locked)
     ${RETURNING}`,
    [r.leaseUntil, r.leaseToken, r.now, r.now, r.limit],
  );
  return rows;
}

/**
 * Leases due webhook deliveries, at most `perEndpoint` in flight per endpoint (one while its circuit is
 * half-open), none of an endpoint whose circuit is open, and at most `perUser` per user over all their endpoints. The limit counts leases of every worker, so claims
 * are serialized by a transaction lock: two workers cannot both see an endpoint's last free place.
 */
export async function claimWebhooks(knex: Knex, r: ClaimRequest): Promise<ClaimedDelivery[]> {
  return knex.transaction(async (trx) => {
    await trx.raw("select pg_advisory_xact_lock(hashtextextended('delivery.webhook-claims', 0))");
    const { rows } = await trx.raw<{ rows: ClaimedDelivery[] }>(
      `with leased as (
         select endpoint_id, user_id, tenant_id from deliveries
         where channel = 'webhook' and status in ('pending', 'failed') and lease_until > ?),
       endpoint_busy as (select endpoint_id, count(*)::int as n from leased group by endpoint_id),
       user_busy as (select tenant_id, user_id, count(*)::int as n from leased group by tenant_id, user_id),
       due as (
         select d.id, d.tenant_id, d.user_id, d.next_attempt_at, coalesce(b.n, 0) as in_flight,
           row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.id) as place,
           case when coalesce(e.consecutive_failures, 0) >= ? then 1 else ? end as allowed
         from deliveries d
         left join webhook_endpoints e on e.id = d.endpoint_id
         left join endpoint_busy b on b.endpoint_id = d.endpoint_id
         where d.channel = 'webhook' and d.status in ('pending', 'failed') and d.next_attempt_at <= ?
           and (d.lease_until is null or d.lease_until <= ?)
           and (e.circuit_open_until is null or e.circuit_open_until <= ?)),
       endpoint_fit as (
         select due.*, coalesce(u.n, 0) as user_in_flight,
           row_number() over (partition by due.tenant_id, due.user_id order by due.next_attempt_at, due.id) as user_place
         from due left join user_busy u on u.tenant_id = due.tenant_id and u.user_id = due.user_id
         where due.in_flight + due.place <= due.allowed)
       update deliveries set lease_until = ?, lease_token = ?
       where id in (
         select id from endpoint_fit where user_in_flight + user_place <= ? order by next_attempt_at limit ?)
       ${RETURNING}`,
      [r.now, r.circuitThreshold, r.perEndpoint, r.now, r.now, r.now, r.leaseUntil, r.leaseToken, r.perUser, r.limit],
    );
    return rows;
  });
}

/** When the earliest scheduled reminder is due (the reminder pacer sleeps until then), null when none is. */
export async function nextReminderDue(knex: Knex): Promise<Date | null> {
  const { rows } = await knex.raw<{ rows: { next: Date | null }[] }>(
    `select min(remind_at) as next from reminders where status = 'scheduled'`,
  );
  return rows[0]?.next ? new Date(rows[0].next) : null;
}

/** When the earliest pending or failed delivery can be tried (beyond its lease), null when none can. */
export async function nextDeliveryDue(knex: Knex): Promise<Date | null> {
  const { rows } = await knex.raw<{ rows: { next: Date | null }[] }>(
    `select min(greatest(next_attempt_at, coalesce(lease_until, next_attempt_at))) as next
     from deliveries where status in ('pending', 'failed')`,
  );
  return rows[0]?.next ? new Date(rows[0].next) : null;
}
