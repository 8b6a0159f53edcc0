import { changedEntries, column, insertRow, type Row, row, type Sql, setClause } from '@routinely/db';
import type { Owner } from '@routinely/platform';
import { z } from 'zod';
import { INTEGRATION_STATUSES, type IntegrationRow, PROVIDERS, SHOW_AS } from './entities.js';

/** The columns of an integration under their property names (read through `integrationRow`). */
const INTEGRATION = `id, tenant_id as "tenantId", user_id as "userId", provider, status, account_email as "accountEmail",
  last_error as "lastError", last_synced_at as "lastSyncedAt", access_token_sealed as "accessTokenSealed",
  refresh_token_sealed as "refreshTokenSealed", access_expires_at as "accessExpiresAt", sync_cursor as "syncCursor",
  oauth_state_hash as "oauthStateHash", oauth_state_expires_at as "oauthStateExpiresAt",
  oauth_verifier_sealed as "oauthVerifierSealed", oauth_return_url as "oauthReturnUrl", channel_id as "channelId",
  channel_resource_id as "channelResourceId", channel_secret_sealed as "channelSecretSealed",
  push_expires_at as "pushExpiresAt", next_sync_at as "nextSyncAt", sync_lease_until as "syncLeaseUntil",
  sync_lease_holder as "syncLeaseHolder", sync_lease_owner as "syncLeaseOwner", granted_scopes as "grantedScopes",
  write_back_user as "writeBackUser", write_back_calendar_name as "writeBackCalendarName",
  write_back_show_as as "writeBackShowAs", write_back_calendar_id as "writeBackCalendarId",
  write_back_last_written_at as "writeBackLastWrittenAt", write_back_last_error as "writeBackLastError",
  write_back_retry_at as "writeBackRetryAt", write_back_throttles as "writeBackThrottles",
  created_at as "createdAt", updated_at as "updatedAt"`;

/** An integration as `INTEGRATION` selects it, the entity's row (db/entities.ts) parsed column by column. */
const integrationRow = row({
  id: column.uuid,
  tenantId: column.text,
  userId: column.text,
  provider: z.enum(PROVIDERS),
  status: z.enum(INTEGRATION_STATUSES),
  accountEmail: column.text.nullable(),
  lastError: column.text.nullable(),
  lastSyncedAt: column.timestamp.nullable(),
  accessTokenSealed: column.text.nullable(),
  refreshTokenSealed: column.text.nullable(),
  accessExpiresAt: column.timestamp.nullable(),
  syncCursor: column.text.nullable(),
  oauthStateHash: column.text.nullable(),
  oauthStateExpiresAt: column.timestamp.nullable(),
  oauthVerifierSealed: column.text.nullable(),
  oauthReturnUrl: column.text.nullable(),
  channelId: column.text.nullable(),
  channelResourceId: column.text.nullable(),
  channelSecretSealed: column.text.nullable(),
  pushExpiresAt: column.timestamp.nullable(),
  nextSyncAt: column.timestamp.nullable(),
  syncLeaseUntil: column.timestamp.nullable(),
  syncLeaseHolder: column.uuid.nullable(),
  syncLeaseOwner: column.uuid.nullable(),
  grantedScopes: column.text.nullable(),
  writeBackUser: column.text.nullable(),
  writeBackCalendarName: column.text.nullable(),
  writeBackShowAs: z.enum(SHOW_AS).nullable(),
  writeBackCalendarId: column.text.nullable(),
  writeBackLastWrittenAt: column.timestamp.nullable(),
  writeBackLastError: column.text.nullable(),
  writeBackRetryAt: column.timestamp.nullable(),
  writeBackThrottles: column.integer,
  createdAt: column.timestamp,
  updatedAt: column.timestamp,
}) satisfies z.ZodType<IntegrationRow, unknown>;

const idRow = row({ id: column.uuid });
const holderRow = row({ holder: column.uuid.nullable() });
const atRow = row({ at: column.timestamp.nullable() });

/** An integration by id; undefined when it is gone. */
export async function integrationById(sql: Sql, id: string): Promise<IntegrationRow | undefined> {
  return sql.first(integrationRow, `select ${INTEGRATION} from integrations where id = ?`, [id]);
}

/** The owner's integration `id`; undefined when there is none (or it is someone else's). */
export async function ownerIntegration(sql: Sql, owner: Owner, id: string): Promise<IntegrationRow | undefined> {
  return sql.first(
    integrationRow,
    `select ${INTEGRATION} from integrations where id = ? and tenant_id = ? and user_id = ?`,
    [id, owner.tenantId, owner.userId],
  );
}

/** The owner's integrations, oldest first. */
export async function ownerIntegrations(sql: Sql, owner: Owner): Promise<IntegrationRow[]> {
  return sql.rows(
    integrationRow,
    `select ${INTEGRATION} from integrations where tenant_id = ? and user_id = ? order by created_at, id`,
    [owner.tenantId, owner.userId],
  );
}

const SYNC_OWNER_KEY_PREFIX = 'integration.sync-owner:';

/** The key of the liveness lock a lease owner (a SyncLeases, one per process) holds while it lives. */
export const syncOwnerLockKey = (owner: string) => `${SYNC_OWNER_KEY_PREFIX}${owner}`;

/**
 * A row's sync lease is free at `?` (now): never taken, lapsed, or its owner is gone. The shared try-lock of the
 * owner's liveness lock succeeds only when no session holds that lock (it ends with this statement's
 * transaction), so a killed process's leases are free at once. A lease without an owner only lapses.
 */
const SYNC_LEASE_FREE = `(sync_lease_until is null or sync_lease_until <= ?
  or (sync_lease_owner is not null
    and pg_try_advisory_xact_lock_shared(hashtextextended('${SYNC_OWNER_KEY_PREFIX}' || sync_lease_owner::text, 0))))`;

/** Who takes a lease: the take's own holder id and the process (owner) whose liveness lock vouches for it. */
export interface LeaseTaker {
  holder: string;
  owner: string;
}

/**
 * Takes the sync lease of one integration for `holder`: only one sync of a connection runs at a time, across
 * replicas. Answers false when another live holder's lease is unexpired (or the row is not syncable).
 */
export async function takeSyncLease(sql: Sql, id: string, taker: LeaseTaker, now: Date, until: Date): Promise<boolean> {
  const taken = await sql.run(
    `update integrations set sync_lease_until = ?, sync_lease_holder = ?, sync_lease_owner = ?
     where id = ? and status in ('active', 'error') and ${SYNC_LEASE_FREE}
     returning id`,
    [until, taker.holder, taker.owner, id, now],
  );
  return taken === 1;
}

/** Extends every lease these holders still have (a lease taken over by another holder is not theirs any more). */
export async function renewSyncLeases(sql: Sql, holders: readonly string[], until: Date): Promise<void> {
  await sql.run('update integrations set sync_lease_until = ? where sync_lease_holder = any(?::uuid[])', [
    until,
    holders,
  ]);
}

/** Gives a lease back; a lease another holder took over after this one lapsed is left alone. */
export async function releaseSyncLease(sql: Sql, id: string, holder: string): Promise<void> {
  await sql.run(
    `update integrations set sync_lease_until = null, sync_lease_holder = null, sync_lease_owner = null
     where id = ? and sync_lease_holder = ?`,
    [id, holder],
  );
}

/** Inside a transaction: locks the row and answers who holds its sync lease now (fencing a late commit). */
export async function lockedLeaseHolder(sql: Sql, id: string): Promise<string | null> {
  const row = await sql.first(
    holderRow,
    'select sync_lease_holder as holder from integrations where id = ? for update',
    [id],
  );
  return row?.holder ?? null;
}

/**
 * Claims active integrations whose sync is due (poll interval, push, backoff over): FOR UPDATE SKIP LOCKED so
 * replicas never claim the same row, and the lease keeps the route's own syncs out while the worker runs.
 */
export async function claimDueSyncs(
  sql: Sql,
  taker: LeaseTaker,
  now: Date,
  until: Date,
  limit: number,
): Promise<string[]> {
  const claimed = await sql.rows(
    idRow,
    `update integrations set sync_lease_until = ?, sync_lease_holder = ?, sync_lease_owner = ?
     where id in (
       select id from integrations
       where status = 'active' and next_sync_at <= ? and ${SYNC_LEASE_FREE}
       order by next_sync_at limit ? for update skip locked)
     returning id`,
    [until, taker.holder, taker.owner, now, now, limit],
  );
  return claimed.map((r) => r.id);
}

/** Active integrations whose push channel expires before `before` (or was never opened), leased for renewal. */
export async function claimChannelRenewals(
  sql: Sql,
  taker: LeaseTaker,
  now: Date,
  before: Date,
  until: Date,
  limit: number,
): Promise<string[]> {
  const claimed = await sql.rows(
    idRow,
    `update integrations set sync_lease_until = ?, sync_lease_holder = ?, sync_lease_owner = ?
     where id in (
       select id from integrations
       where status = 'active' and (push_expires_at is null or push_expires_at <= ?) and ${SYNC_LEASE_FREE}
       order by push_expires_at nulls first limit ? for update skip locked)
     returning id`,
    [until, taker.holder, taker.owner, before, now, limit],
  );
  return claimed.map((r) => r.id);
}

/** The earliest time any integration's sync becomes due, for the pacer's sleep. */
export async function nextSyncDue(sql: Sql): Promise<Date | null> {
  const row = await sql.first(atRow, "select min(next_sync_at) as at from integrations where status = 'active'");
  return row?.at ?? null;
}

/**
 * Consumes an OAuth state: the one row holding it (unexpired) loses it in the same statement, so a replayed
 * callback finds nothing. Answers the row id.
 */
export async function consumeOAuthState(sql: Sql, stateHash: string, now: Date): Promise<string | null> {
  const row = await sql.first(
    idRow,
    `update integrations set oauth_state_hash = null, oauth_state_expires_at = null
     where oauth_state_hash = ? and oauth_state_expires_at > ?
     returning id`,
    [stateHash, now],
  );
  return row?.id ?? null;
}

/** Serialises oauth/start of one user and provider for the rest of the transaction (one pending row each). */
export async function lockPendingStart(sql: Sql, owner: Owner, provider: string): Promise<void> {
  await sql.advisoryLock(`integration.pending:${owner.tenantId}/${owner.userId}/${provider}`);
}

/** What a push notification is checked against: the integration holding the channel. */
const pushTargetRow = row({ id: column.uuid, status: column.text, channel_secret_sealed: column.text.nullable() });
export type PushTarget = Row<typeof pushTargetRow>;

export function pushTargetOf(sql: Sql, provider: string, channelId: string): Promise<PushTarget | undefined> {
  return sql.first(
    pushTargetRow,
    'select id, status, channel_secret_sealed from integrations where channel_id = ? and provider = ?',
    [channelId, provider],
  );
}

/** Makes the integration's sync due at `now` (a push said something changed). */
export async function makeSyncDue(sql: Sql, id: string, now: Date): Promise<void> {
  await sql.run('update integrations set next_sync_at = ? where id = ?', [now, id]);
}

/** A failed sync: the error, and when to try again (only while the integration is still active). */
export async function noteSyncFailure(sql: Sql, id: string, lastError: string, next: Date, now: Date): Promise<void> {
  await sql.run(
    `update integrations set last_error = ?, next_sync_at = ?, updated_at = ? where id = ? and status = 'active'`,
    [lastError, next, now, id],
  );
}

/** The owner's pending integrations with `provider`, newest first. */
export async function pendingIntegrations(sql: Sql, owner: Owner, provider: string): Promise<IntegrationRow[]> {
  return sql.rows(
    integrationRow,
    `select ${INTEGRATION} from integrations
     where tenant_id = ? and user_id = ? and provider = ? and status = 'pending' order by created_at desc, id desc`,
    [owner.tenantId, owner.userId, provider],
  );
}

/** Writes a new integration with the columns given (the others start null). */
export function insertIntegration(sql: Sql, row: Partial<IntegrationRow>): Promise<void> {
  return insertRow(sql, 'integrations', row);
}

/** Writes the columns of `change` that differ from `row` as it was read (see `changed-columns.ts` of @routinely/db). */
export async function writeIntegrationChange(
  sql: Sql,
  row: IntegrationRow,
  change: Partial<IntegrationRow>,
): Promise<void> {
  const entries = changedEntries(row, change);
  if (entries.length === 0) return;
  const { set, bindings } = setClause(entries);
  await sql.run(`update integrations set ${set} where id = ? and tenant_id = ?`, [...bindings, row.id, row.tenantId]);
}

/** Writes every column of `patch` (a step's result, whatever the row holds now) in one statement. */
export async function updateIntegration(
  sql: Sql,
  row: Pick<IntegrationRow, 'id' | 'tenantId'>,
  patch: Partial<IntegrationRow>,
): Promise<void> {
  const entries = Object.entries(patch).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return;
  const { set, bindings } = setClause(entries);
  await sql.run(`update integrations set ${set} where id = ? and tenant_id = ?`, [...bindings, row.id, row.tenantId]);
}

/** Removes the tenant's integrations `ids`. */
export async function deleteIntegrations(sql: Sql, tenantId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql.run('delete from integrations where id = any(?::uuid[]) and tenant_id = ?', [ids, tenantId]);
}
